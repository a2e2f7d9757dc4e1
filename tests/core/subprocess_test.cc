// Children started by tputrain: run to the end, or in the background and stopped by PID.
#include "tputrain/core/subprocess.h"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

namespace tputrain::core {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Until the child has said it is ready (bounded): a signal before that races its shell's setup.
bool WaitForLog(const std::string& path) {
  for (int i = 0; i < 500 && Slurp(path).empty(); ++i) usleep(10000);
  return !Slurp(path).empty();
}

Env TestEnv() { return Env(std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}}); }

TEST_CASE("RunProcess: the exit code and what it printed; a missing program is NotFound") {
  auto ran = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"}, TestEnv());
  REQUIRE(ran);
  CHECK(ran->exit_code == 3);
  CHECK(ran->output.find("out\n") != std::string::npos);
  CHECK(ran->output.find("err\n") != std::string::npos);
  auto missing = RunProcess({"no-such-program-tputrain"}, TestEnv());
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == ErrorKind::kNotFound);
  CHECK(FindOnPath("sh", TestEnv()).rfind('/') != std::string::npos);
  CHECK(FindOnPath("sh", Env(std::map<std::string, std::string>{{"PATH", "/nonexistent"}})).empty());
}

TEST_CASE("ChildProcess: runs until stopped, then is gone; its output is in its log") {
  const std::string log = "/tmp/tputrain-subprocess-test-" + std::to_string(getpid()) + ".log";
  auto child = ChildProcess::Start({"sh", "-c", "echo started; exec sleep 60"}, TestEnv(), log);
  REQUIRE(child);
  REQUIRE(WaitForLog(log));
  const pid_t pid = (*child)->pid();
  CHECK_FALSE((*child)->ExitCode());
  CHECK(kill(pid, 0) == 0);
  (*child)->Stop();
  REQUIRE((*child)->ExitCode());
  CHECK(*(*child)->ExitCode() == 128 + SIGTERM);
  CHECK(kill(pid, 0) != 0);  // reaped: no zombie left
  CHECK(Slurp(log) == "started\n");

  // One that ignores SIGTERM is killed after the grace period.
  auto stubborn = ChildProcess::Start({"sh", "-c", "trap '' TERM; echo trapped; exec sleep 60"}, TestEnv(), log);
  REQUIRE(stubborn);
  REQUIRE(WaitForLog(log));
  (*stubborn)->Stop(std::chrono::milliseconds(100));
  CHECK(*(*stubborn)->ExitCode() == 128 + SIGKILL);
  std::remove(log.c_str());
}

}  // namespace
}  // namespace tputrain::core
