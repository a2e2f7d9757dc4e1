#include "testing/netns_host.h"

#include <signal.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>

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

std::vector<int> PidsIn(const std::string& netns) {
  std::vector<int> pids;
  std::istringstream lines(Ip({"netns", "pids", netns}).out);
  for (int pid; lines >> pid;) pids.push_back(pid);
  return pids;
}

}  // namespace

NetnsHost::NetnsHost(const std::string& tag, int subnet) {
  const int id = getpid() % 16000;
  netns_ = "tr" + tag + "-" + std::to_string(getpid());
  host_veth_ = "tr" + tag + "h" + std::to_string(getpid());
  const std::string ns_veth = "tr" + tag + "n" + std::to_string(getpid());
  const std::string prefix = "10." + std::to_string(subnet) + "." + std::to_string(id / 64) + ".";
  const int fourth = (id % 64) * 4;
  const std::string host_ip = prefix + std::to_string(fourth + 1);
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
  } catch (...) {
    Teardown();
    throw;
  }
}

NetnsHost::~NetnsHost() { Teardown(); }

std::unique_ptr<ScopedProcess> NetnsHost::Start(ProcessOptions options) const {
  std::vector<std::string> argv = {"ip", "netns", "exec", netns_};
  argv.insert(argv.end(), options.argv.begin(), options.argv.end());
  options.argv = std::move(argv);
  return std::make_unique<ScopedProcess>(options);
}

void NetnsHost::EndProcesses() const {
  // SIGTERM first (Ray's daemons shut down on it), then SIGKILL for whatever outlives a bounded wait.
  for (int pid : PidsIn(netns_)) kill(pid, SIGTERM);
  if (!WaitFor([&] { return PidsIn(netns_).empty(); }, std::chrono::seconds(20))) {
    for (int pid : PidsIn(netns_)) kill(pid, SIGKILL);
    WaitFor([&] { return PidsIn(netns_).empty(); }, std::chrono::seconds(10));
  }
}

void NetnsHost::Teardown() {
  EndProcesses();
  Ip({"link", "del", host_veth_});
  Ip({"netns", "del", netns_});
}

}  // namespace tputrain::testing
