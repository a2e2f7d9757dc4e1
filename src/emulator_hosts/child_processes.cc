#include "child_processes.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace tputrain::emulator {
namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int ExitCodeOf(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Reads both pipes to their ends without letting either fill up.
void Drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_fds = 2;
  char buffer[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (i == 0 ? out : err).append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
}

}  // namespace

ChildProcesses::ChildProcesses() {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  reaper_ = std::thread([this] { ReapLoop(); });
}

ChildProcesses::~ChildProcesses() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  reaper_.join();
}

void ChildProcesses::ReapLoop() {
  // One thread reaps every child (waitpid(-1)); Run and ExitCode read what it recorded, so no
  // other waitpid can race it for a status.
  while (true) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      std::lock_guard lock(mutex_);
      exit_codes_[pid] = ExitCodeOf(status);
      changed_.notify_all();
      continue;
    }
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

int ChildProcesses::WaitFor(pid_t pid) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return exit_codes_.count(pid) > 0; });
  int code = exit_codes_[pid];
  exit_codes_.erase(pid);
  return code;
}

std::optional<int> ChildProcesses::ExitCode(pid_t pid) {
  std::lock_guard lock(mutex_);
  auto it = exit_codes_.find(pid);
  if (it == exit_codes_.end()) return std::nullopt;
  return it->second;
}

CommandResult ChildProcesses::Run(const std::vector<std::string>& argv) {
  CommandResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  auto args = CStrings(argv);
  pid_t pid = fork();
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  Drain(out_pipe[0], err_pipe[0], result.out, result.err);
  result.exit_code = WaitFor(pid);
  return result;
}

core::Result<pid_t> ChildProcesses::Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                          const std::string& log_path) {
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return core::Fail(core::Error::Internal("cannot open " + log_path + ": " + std::strerror(errno)));
  auto args = CStrings(argv);
  auto environment = CStrings(env);
  pid_t pid = fork();
  if (pid == 0) {
    setsid();
    // The emulator's signal dispositions (SIGINT/SIGTERM handling, ignored SIGPIPE) are not the host's.
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execvpe(args[0], args.data(), environment.data());  // looked up in the emulator's PATH
    _exit(127);
  }
  close(log_fd);
  if (pid < 0) return core::Fail(core::Error::Internal(std::string("fork: ") + std::strerror(errno)));
  return pid;
}

}  // namespace tputrain::emulator
