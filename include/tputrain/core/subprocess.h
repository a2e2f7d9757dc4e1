#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

// Other programs run by tputrain itself (ssh, ssh-keygen): found on the caller's PATH, started
// with exactly the caller's environment snapshot, never through a shell.
namespace tputrain::core {

// The executable `program` names: itself when it holds a '/', else the first match on env's PATH;
// empty when there is none.
std::string FindOnPath(const std::string& program, const Env& env);

struct ProcessOutput {
  int exit_code = -1;  // 128 + signal when a signal ended it
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv to its end with stdin from /dev/null. NotFound when argv[0] is not on PATH.
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, const Env& env);

// A child that runs in the background until Stop (or its own end); the destructor stops it, so
// no child outlives its owner.
class ChildProcess {
 public:
  // stdin from /dev/null; stdout and stderr to `log_path` (created, 0600), read after it ended.
  static Result<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv, const Env& env,
                                                     const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Its exit code once it has ended (reaped here), else nothing; never blocks.
  std::optional<int> ExitCode();
  // SIGTERM, SIGKILL if it is still there after `grace`, and reaped. Safe to call again.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(2));

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> exit_code_;
};

}  // namespace tputrain::core
