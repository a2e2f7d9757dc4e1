#include "k8s/netns_ray_head.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "k8s/apiserver_fixture.h"
#include "testing/scoped_process.h"
#include "tputrain/core/env.h"

namespace tputrain::testing {
namespace {

ProcessResult Ip(const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {"ip"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  return RunProcess(options, std::chrono::seconds(30));
}

void MustIp(const std::vector<std::string>& args) {
  auto result = Ip(args);
  if (result.exit_code != 0) {
    std::string joined;
    for (const auto& arg : args) joined += " " + arg;
    throw std::runtime_error("ip" + joined + " failed: " + result.err);
  }
}

// What runs inside the namespace: the head's daemons and workers, nothing else on the machine.
std::vector<int> PidsIn(const std::string& netns) {
  std::vector<int> pids;
  std::istringstream lines(Ip({"netns", "pids", netns}).out);
  for (int pid; lines >> pid;) pids.push_back(pid);
  return pids;
}

// Ends exactly the namespace's processes, never by name: `ray stop --force` would also stop
// every other Ray process on the machine (other tests' heads, a user's cluster). SIGTERM first,
// which Ray's daemons shut down on, then SIGKILL for whatever outlives a bounded wait.
void EndProcessesIn(const std::string& netns) {
  for (int pid : PidsIn(netns)) kill(pid, SIGTERM);
  if (WaitFor([&] { return PidsIn(netns).empty(); }, std::chrono::seconds(20))) return;
  for (int pid : PidsIn(netns)) kill(pid, SIGKILL);
  WaitFor([&] { return PidsIn(netns).empty(); }, std::chrono::seconds(10));
}

}  // namespace

NetnsRayHead::NetnsRayHead(const std::string& venv_dir) {
  auto env = core::Env::FromProcess();
  std::string venv =
      venv_dir.empty() ? env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test") + "/ray" : venv_dir;
  ray_bin_ = venv + "/bin";
  if (access((ray_bin_ + "/ray").c_str(), X_OK) != 0) {
    throw std::runtime_error("no Ray in " + venv + ": run scripts/peers/ray.sh (or scripts/setup-test-peers.sh)");
  }
  // Names and the subnet are unique to this run (pid), so parallel runs do not collide.
  int id = getpid() % 16000;
  netns_ = "trk8s-" + std::to_string(getpid());
  host_veth_ = "trk8h" + std::to_string(getpid());
  std::string ns_veth = "trk8n" + std::to_string(getpid());
  int third = id / 64;
  int fourth = (id % 64) * 4;
  std::string prefix = "10.251." + std::to_string(third) + ".";
  std::string host_ip = prefix + std::to_string(fourth + 1);
  ns_ip_ = prefix + std::to_string(fourth + 2);
  try {
    MustIp({"netns", "add", netns_});
    MustIp({"link", "add", host_veth_, "type", "veth", "peer", "name", ns_veth});
    MustIp({"link", "set", ns_veth, "netns", netns_});
    MustIp({"addr", "add", host_ip + "/30", "dev", host_veth_});
    MustIp({"link", "set", host_veth_, "up"});
    MustIp({"netns", "exec", netns_, "ip", "addr", "add", ns_ip_ + "/30", "dev", ns_veth});
    MustIp({"netns", "exec", netns_, "ip", "link", "set", ns_veth, "up"});
    MustIp({"netns", "exec", netns_, "ip", "link", "set", "lo", "up"});

    std::string pattern = "/tmp/trk8ray-XXXXXX";  // short: Ray's socket paths are limited
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    temp_dir_ = pattern;
    ProcessOptions start;
    start.argv = {"ip",
                  "netns",
                  "exec",
                  netns_,
                  ray_bin_ + "/ray",
                  "start",
                  "--head",
                  "--node-ip-address",
                  ns_ip_,
                  "--port",
                  "6379",
                  "--dashboard-host",
                  ns_ip_,
                  "--dashboard-port",
                  std::to_string(kDashboardPort),
                  "--num-cpus",
                  "1",
                  "--disable-usage-stats",
                  "--temp-dir",
                  temp_dir_};
    start.env = {{"PATH", ray_bin_ + ":" + env.GetOr("PATH", "/usr/bin:/bin")},
                 {"RAY_USAGE_STATS_ENABLED", "0"},
                 {"RAY_ADDRESS", std::nullopt}};
    ScopedProcess starter(start);
    WaitFor([&] { return !starter.running(); }, std::chrono::minutes(3));
    int code = starter.Stop();
    if (code != 0)
      throw std::runtime_error("ray start in " + netns_ + " failed:\n" + starter.ReadOut() + starter.ReadErr());
  } catch (...) {
    Teardown();
    throw;
  }
}

NetnsRayHead::~NetnsRayHead() { Teardown(); }

void NetnsRayHead::Teardown() {
  if (!netns_.empty()) EndProcessesIn(netns_);
  Ip({"link", "del", host_veth_});
  Ip({"netns", "del", netns_});
  std::error_code ignored;
  if (!temp_dir_.empty()) std::filesystem::remove_all(temp_dir_, ignored);
  temp_dir_.clear();
}

}  // namespace tputrain::testing
