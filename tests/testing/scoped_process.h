#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tputrain::testing {

struct ProcessResult {
  int exit_code = -1;  // 128+N when killed by signal N
  std::string out;
  std::string err;
  long peak_rss_kib = 0;  // the child's maximum resident set (wait4's ru_maxrss)
  std::chrono::milliseconds wall{0};
};

struct ProcessOptions {
  std::vector<std::string> argv;
  // Variables to set on top of the test's own environment; a value of std::nullopt unsets.
  std::map<std::string, std::optional<std::string>> env;
  std::string stdin_text;
  std::string working_dir;
};

// Runs a command to completion and captures its output. Used for the tputrain binary itself
// (end-to-end CLI tests) and for peers such as gcloud, envsubst and ray.
ProcessResult RunProcess(const ProcessOptions& options, std::chrono::seconds timeout = std::chrono::seconds(120));

// Path of the tputrain binary built alongside the tests.
std::string TputrainBinary();

// A background process (the emulator, a Ray head) that is killed with its process group when
// the object goes out of scope, whatever the test did.
class ScopedProcess {
 public:
  explicit ScopedProcess(const ProcessOptions& options);
  ~ScopedProcess();
  ScopedProcess(const ScopedProcess&) = delete;
  ScopedProcess& operator=(const ScopedProcess&) = delete;

  int pid() const { return pid_; }
  bool running();
  // Sends SIGTERM, waits up to `grace`, then SIGKILL. Returns the exit code.
  int Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  void Kill();  // SIGKILL now.
  std::string ReadOut() const;
  std::string ReadErr() const;

 private:
  int pid_ = -1;
  std::optional<int> exit_code_;
  std::string out_path_;
  std::string err_path_;
};

// Polls `probe` every 50 ms until it returns true or `timeout` passes.
bool WaitFor(const std::function<bool()>& probe, std::chrono::milliseconds timeout);

}  // namespace tputrain::testing
