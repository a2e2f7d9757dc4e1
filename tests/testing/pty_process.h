#pragma once

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace tputrain::testing {

// A process on a pseudo-terminal, for what tputrain does only for a person at a terminal:
// prompts, ^C reaching it as SIGINT through the line discipline, output fitted to the terminal's
// `columns` (0: the size a new terminal has, none). Link `util` (forkpty).
class PtyProcess {
 public:
  explicit PtyProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                      unsigned short columns = 0) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 50;
    pid_ = forkpty(&fd_, nullptr, nullptr, columns > 0 ? &size : nullptr);
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

}  // namespace tputrain::testing
