// Ctrl-C while following, on a terminal: tputrain offers to stop the job. Run in a pseudo-
// terminal, where ^C reaches the process as SIGINT through the line discipline, as for a person.
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "ray/ray_head.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

class PtyProcess {
 public:
  explicit PtyProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
    pid_ = forkpty(&fd_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
      std::vector<char*> args;
      for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~PtyProcess() {
    if (pid_ > 0 && !exit_code_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(fd_);
  }

  // Reads the terminal until `token` shows up (true) or `timeout` passes (false).
  bool ReadUntil(const std::string& token, std::chrono::seconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output_.find(token) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buffer[4096];
      ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n <= 0) return output_.find(token) != std::string::npos;
      output_.append(buffer, static_cast<size_t>(n));
    }
    return true;
  }
  void Type(const std::string& text) {
    REQUIRE(write(fd_, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return *exit_code_;
  }
  const std::string& output() const { return output_; }

 private:
  int pid_ = -1;
  int fd_ = -1;
  std::string output_;
  std::optional<int> exit_code_;
};

}  // namespace

TEST_CASE("Ctrl-C while following on a terminal asks, and 'y' stops the job (exit 3)", "[integration]") {
  auto& head = SharedRayHead();
  std::string id = "tty-" + std::to_string(getpid());
  PtyProcess follow({TputrainBinary(), "job", "submit", "--submission-id", id, "--address", head.address(), "--",
                     "python", "-c", "import time\nprint('started', flush=True)\ntime.sleep(300)"},
                    {{"PATH", head.bin_dir() + ":/usr/bin:/bin"}});
  REQUIRE(follow.ReadUntil("started", std::chrono::seconds(120)));
  follow.Type("\x03");
  REQUIRE(follow.ReadUntil("[y/N]", std::chrono::seconds(30)));
  follow.Type("y\n");
  INFO(follow.output());
  CHECK(follow.ReadUntil("STOPPED", std::chrono::seconds(60)));
  CHECK(follow.Wait() == 3);

  auto env = head.CliEnv();
  auto status = RunProcess(ProcessOptions{
      {TputrainBinary(), "job", "status", id, "--address", head.address(), "--format", "json"}, env, "", ""});
  CHECK(nlohmann::json::parse(status.out)["status"] == "STOPPED");
}

}  // namespace tputrain::testing
