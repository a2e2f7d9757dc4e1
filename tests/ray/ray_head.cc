#include "ray/ray_head.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "testing/free_port.h"
#include "testing/proc_cmdline.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

int FreePortOutsideRayRange() {
  for (int tries = 0; tries < 100; ++tries) {
    int port = FreeLoopbackPort();
    if (port < 10002 || port > 19999) return port;
  }
  throw std::runtime_error("no free loopback port outside 10002-19999");
}

// The processes of the head whose session lives under `temp_dir`: every Ray daemon and worker is
// started with a path under it (--temp-dir, --session-dir, --log-dir), and the directory is this
// head's own (mkdtemp). /proc/PID/cmdline is NUL-separated; the match is on the whole path.
std::vector<pid_t> PidsUnder(const std::string& temp_dir) {
  std::vector<pid_t> pids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = ProcCmdline(name);
    for (size_t at = cmdline.find(temp_dir); at != std::string::npos; at = cmdline.find(temp_dir, at + 1)) {
      const size_t end = at + temp_dir.size();
      if (end == cmdline.size() || cmdline[end] == '/' || cmdline[end] == '\0') {
        pids.push_back(static_cast<pid_t>(std::stoi(name)));
        break;
      }
    }
  }
  return pids;
}

// SIGTERM, which Ray's daemons shut down on, then SIGKILL for whatever outlives a bounded wait.
void EndProcessesUnder(const std::string& temp_dir) {
  for (pid_t pid : PidsUnder(temp_dir)) kill(pid, SIGTERM);
  if (WaitFor([&] { return PidsUnder(temp_dir).empty(); }, std::chrono::seconds(20))) return;
  for (pid_t pid : PidsUnder(temp_dir)) kill(pid, SIGKILL);
  WaitFor([&] { return PidsUnder(temp_dir).empty(); }, std::chrono::seconds(10));
}

}  // namespace

std::string RayHead::DefaultVenv() {
  const char* cache = getenv("TPUTRAIN_TEST_CACHE");
  std::string base =
      cache != nullptr && cache[0] != '\0' ? cache : std::string(getenv("HOME")) + "/.cache/tputrain-test";
  return base + "/ray";
}

RayHead::RayHead(Options options) {
  std::string venv = options.venv.empty() ? DefaultVenv() : options.venv;
  bin_dir_ = venv + "/bin";
  if (!std::filesystem::exists(bin_dir_ + "/ray")) {
    throw std::runtime_error("no Ray in " + venv + ": run scripts/peers/ray.sh (or scripts/setup-test-peers.sh)");
  }
  // Short: Ray puts unix sockets under it, and socket paths are limited to 107 bytes.
  std::string pattern = "/tmp/trray-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  temp_dir_ = pattern;
  env_ = options.env;
  env_["PATH"] = bin_dir_ + ":" + std::string(getenv("PATH") != nullptr ? getenv("PATH") : "/usr/bin:/bin");
  env_["RAY_USAGE_STATS_ENABLED"] = "0";
  env_["RAY_ADDRESS"] = std::nullopt;

  int dashboard_port = FreePortOutsideRayRange();
  std::vector<std::string> argv = {bin_dir_ + "/ray", "start", "--head", "--node-ip-address", "127.0.0.1", "--port",
                                   std::to_string(FreePortOutsideRayRange()), "--dashboard-host", "127.0.0.1",
                                   "--dashboard-port", std::to_string(dashboard_port),
                                   // Fixed defaults (10001, 52365) would collide with any other head on the machine.
                                   "--ray-client-server-port", std::to_string(FreePortOutsideRayRange()),
                                   "--dashboard-agent-listen-port", std::to_string(FreePortOutsideRayRange()),
                                   "--min-worker-port", "20000", "--max-worker-port", "20999", "--num-cpus",
                                   std::to_string(options.num_cpus), "--disable-usage-stats", "--temp-dir", temp_dir_};
  ScopedProcess start(ProcessOptions{argv, env_, "", ""});
  process_group_ = start.pid();  // the head's daemons stay in the process group of `ray start`
  WaitFor([&] { return !start.running(); }, std::chrono::minutes(3));
  int code = start.Stop();
  if (code != 0) {
    std::string output = start.ReadOut() + start.ReadErr();
    Teardown();
    throw std::runtime_error("ray start failed (" + std::to_string(code) + "):\n" + output);
  }
  address_ = "http://127.0.0.1:" + std::to_string(dashboard_port);
}

RayHead::~RayHead() { Teardown(); }

void RayHead::Teardown() {
  if (temp_dir_.empty()) return;
  // By PID, never `ray stop`, which would stop every Ray process of the user (other tests' heads,
  // a user's own cluster).
  EndProcessesUnder(temp_dir_);
  if (process_group_ > 0) kill(-process_group_, SIGKILL);
  std::error_code ignored;
  std::filesystem::remove_all(temp_dir_, ignored);
  temp_dir_.clear();
}

std::map<std::string, std::optional<std::string>> RayHead::CliEnv() const { return env_; }

RayHead& SharedRayHead() {
  static std::unique_ptr<RayHead> head;
  static std::string failure;  // a head that failed to start is not retried by every test
  if (head) return *head;
  if (!failure.empty()) throw std::runtime_error(failure);
  try {
    head = std::make_unique<RayHead>(RayHead::Options{});
  } catch (const std::exception& e) {
    failure = e.what();
    throw;
  }
  return *head;
}

}  // namespace tputrain::testing
