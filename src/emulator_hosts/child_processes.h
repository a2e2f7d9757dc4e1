#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tputrain/core/result.h"

// The emulator's own children in --tpu-hosts netns mode: `ip` commands and the hosts' startup
// scripts. The emulator becomes a child subreaper, so the daemons a startup script leaves behind
// are reaped here when they end rather than by whatever PID 1 the machine runs.
namespace tputrain::emulator {

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal or not started
  std::string out;
  std::string err;
};

class ChildProcesses {
 public:
  ChildProcesses();  // becomes a subreaper and starts the reaping thread
  ~ChildProcesses();
  ChildProcesses(const ChildProcesses&) = delete;
  ChildProcesses& operator=(const ChildProcesses&) = delete;

  // Runs argv[0] (looked up in PATH) to completion and returns what it printed.
  CommandResult Run(const std::vector<std::string>& argv);
  // Starts argv (looked up in the emulator's PATH) in the background in a session of its own, stdin from /dev/null,
  // stdout and stderr appended to `log_path`, with exactly `env`. Returns its PID.
  core::Result<pid_t> Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                            const std::string& log_path);
  // The exit code of a child that ended (-1 for a signal), or nothing while it runs.
  std::optional<int> ExitCode(pid_t pid);

 private:
  void ReapLoop();
  int WaitFor(pid_t pid);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<pid_t, int> exit_codes_;  // every reaped child's; orphans' are few and small
  bool stopping_ = false;
  std::thread reaper_;
};

}  // namespace tputrain::emulator
