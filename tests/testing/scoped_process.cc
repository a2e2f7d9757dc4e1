#include "testing/scoped_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tputrain::testing {
namespace {

std::string TempPath(const char* tag) {
  std::string pattern = std::string("/tmp/tputrain-test-") + tag + "-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  return pattern;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Forks and execs in a new process group with stdin from `stdin_path` and output to files.
int Spawn(const ProcessOptions& options, const std::string& stdin_path, const std::string& out_path,
          const std::string& err_path) {
  if (options.argv.empty()) throw std::runtime_error("empty argv");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    for (const auto& [name, value] : options.env) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(127);
    int in = open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_TRUNC);
    int err = open(err_path.c_str(), O_WRONLY | O_TRUNC);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const auto& arg : options.argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

}  // namespace

ProcessResult RunProcess(const ProcessOptions& options, std::chrono::seconds timeout) {
  std::string out_path = TempPath("out");
  std::string err_path = TempPath("err");
  std::string in_path;
  if (!options.stdin_text.empty()) {
    in_path = TempPath("in");
    std::ofstream(in_path, std::ios::binary) << options.stdin_text;
  }
  const auto started = std::chrono::steady_clock::now();
  int pid = Spawn(options, in_path, out_path, err_path);
  auto deadline = started + timeout;
  int status = 0;
  ProcessResult result;
  while (true) {
    struct rusage usage {};
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) {
      result.exit_code = DecodeStatus(status);
      result.peak_rss_kib = usage.ru_maxrss;
      result.wall = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.exit_code = -2;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  if (!in_path.empty()) unlink(in_path.c_str());
  return result;
}

std::string TputrainBinary() { return std::string(TPUTRAIN_BINARY_DIR) + "/tputrain"; }

ScopedProcess::ScopedProcess(const ProcessOptions& options)
    : out_path_(TempPath("bg-out")), err_path_(TempPath("bg-err")) {
  pid_ = Spawn(options, "", out_path_, err_path_);
}

ScopedProcess::~ScopedProcess() {
  if (!exit_code_) Stop(std::chrono::milliseconds(2000));
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

bool ScopedProcess::running() {
  if (exit_code_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = DecodeStatus(status);
    return false;
  }
  return true;
}

int ScopedProcess::Stop(std::chrono::milliseconds grace) {
  if (exit_code_) return *exit_code_;
  kill(-pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) {
      kill(-pid_, SIGKILL);  // children the leader left behind
      return *exit_code_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Kill();
  return exit_code_.value_or(-1);
}

void ScopedProcess::Kill() {
  if (exit_code_) return;
  kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = DecodeStatus(status);
}

std::string ScopedProcess::ReadOut() const { return ReadFile(out_path_); }
std::string ScopedProcess::ReadErr() const { return ReadFile(err_path_); }

bool WaitFor(const std::function<bool()>& probe, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (probe()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return probe();
}

}  // namespace tputrain::testing
