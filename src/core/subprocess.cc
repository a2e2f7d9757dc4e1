#include "tputrain/core/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

namespace tputrain::core {
namespace {

// posix_spawn wants NUL-terminated arrays of char*; these own the strings they point into.
struct CStrings {
  std::vector<std::string> owned;
  std::vector<char*> pointers;
  explicit CStrings(std::vector<std::string> strings) : owned(std::move(strings)) {
    for (auto& s : owned) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
};

CStrings EnvStrings(const Env& env) {
  std::vector<std::string> strings;
  for (const auto& [name, value] : env.vars()) strings.push_back(name + "=" + value);
  return CStrings(std::move(strings));
}

int CodeOf(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

Result<pid_t> Spawn(const std::vector<std::string>& argv, const Env& env, posix_spawn_file_actions_t& actions) {
  if (argv.empty()) return Fail(Error::Internal("no program to run"));
  std::string program = FindOnPath(argv[0], env);
  if (program.empty()) return Fail(Error::Make(ErrorKind::kNotFound, argv[0] + ": not found on PATH"));
  CStrings args(argv);
  CStrings envp = EnvStrings(env);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, args.pointers.data(), envp.pointers.data());
  if (rc != 0) return Fail(Error::Internal("cannot start " + program + ": " + std::strerror(rc)));
  return pid;
}

}  // namespace

std::string FindOnPath(const std::string& program, const Env& env) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  std::stringstream path(env.GetOr("PATH", "/usr/local/bin:/usr/bin:/bin"));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, const Env& env) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Fail(Error::Internal("cannot create a pipe"));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
  auto pid = Spawn(argv, env, actions);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (!pid) {
    close(out[0]);
    return Fail(pid.error());
  }
  ProcessOutput result;
  char buffer[4096];
  ssize_t n;
  while ((n = read(out[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) result.output.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = CodeOf(status);
  return result;
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::Start(const std::vector<std::string>& argv, const Env& env,
                                                          const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  auto pid = Spawn(argv, env, actions);
  posix_spawn_file_actions_destroy(&actions);
  if (!pid) return Fail(pid.error());
  return std::unique_ptr<ChildProcess>(new ChildProcess(*pid));
}

ChildProcess::~ChildProcess() { Stop(); }

std::optional<int> ChildProcess::ExitCode() {
  if (exit_code_) return exit_code_;
  int status = 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid_, &status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == pid_) exit_code_ = CodeOf(status);
  if (reaped < 0) exit_code_ = -1;  // not our child any more (reaped elsewhere): nothing left to stop
  return exit_code_;
}

void ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (ExitCode()) return;
  kill(pid_, SIGTERM);
  // The PID stays ours until it is reaped, so neither signal can reach another process.
  auto deadline = std::chrono::steady_clock::now() + grace;
  auto delay = std::chrono::milliseconds(5);
  while (!ExitCode() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(100));
  }
  if (ExitCode()) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exit_code_ = CodeOf(status);
}

}  // namespace tputrain::core
