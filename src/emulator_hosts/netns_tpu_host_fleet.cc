#include "netns_tpu_host_fleet.h"

#include "tputrain/emulator_hosts/netns_tpu_host_fleet.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "tputrain/core/file.h"

namespace tputrain::emulator {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Root's runtime directory: not under /tmp or /dev, which every host replaces with its own.
// (Whole literals: GCC 12 warns, wrongly, on appending to a short string here.)
const char kHostsDir[] = "/run/tputrain-emulator/hosts";
const char kLockPath[] = "/run/tputrain-emulator/lock";

}  // namespace

core::Result<std::unique_ptr<NetnsTpuHostFleet>> NetnsTpuHostFleet::Create(std::string host_path) {
  if (geteuid() != 0) {
    return core::Fail(core::Error::Usage(
        "--tpu-hosts netns: needs root (it makes network namespaces, a bridge and mounts); run as root or drop "
        "--tpu-hosts"));
  }
  std::error_code error;
  fs::create_directories(kHostsDir, error);
  const std::string lock_path = kLockPath;
  int lock_fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (lock_fd >= 0) close(lock_fd);
    return core::Fail(core::Error::Make(
        core::ErrorKind::kFailedPrecondition,
        "--tpu-hosts netns: another emulator runs TPU hosts on this machine (it holds " + lock_path + ")"));
  }
  std::unique_ptr<NetnsTpuHostFleet> fleet(new NetnsTpuHostFleet(std::move(host_path), lock_fd));
  RemoveLeftoverHosts(*fleet->children_);
  RemoveHostBridge(*fleet->children_);
  fs::remove_all(kHostsDir, error);
  fs::create_directories(kHostsDir, error);
  if (auto status = CreateHostBridge(*fleet->children_); !status) return core::Fail(status.error());
  fleet->FindSshd();
  return fleet;
}

void NetnsTpuHostFleet::FindSshd() {
  if (access("/usr/sbin/sshd", X_OK) != 0 || access("/usr/bin/ssh-keygen", X_OK) != 0) {
    std::cerr << "emulator: no /usr/sbin/sshd (openssh-server): the TPU hosts run no ssh server, so --via ssh "
                 "cannot reach them\n";
    return;
  }
  // sshd's privilege-separation directory, which only its package's service would otherwise make.
  std::error_code error;
  fs::create_directories("/run/sshd", error);
  with_sshd_ = !error;
}

NetnsTpuHostFleet::NetnsTpuHostFleet(std::string host_path, int lock_fd)
    : host_path_(std::move(host_path)), lock_fd_(lock_fd), children_(std::make_unique<ChildProcesses>()) {}

NetnsTpuHostFleet::~NetnsTpuHostFleet() {
  {
    std::lock_guard lock(mutex_);
    for (auto& [address, host] : hosts_) RemoveHost(*children_, host.names);
    hosts_.clear();
  }
  RemoveHostBridge(*children_);
  std::error_code ignored;
  fs::remove_all(kHostsDir, ignored);
  children_.reset();
  close(lock_fd_);
}

void NetnsTpuHostFleet::Reconcile(const std::vector<TpuHostSpec>& wanted) {
  std::lock_guard lock(mutex_);
  for (auto it = hosts_.begin(); it != hosts_.end();) {
    bool still_wanted = std::find(wanted.begin(), wanted.end(), it->second.spec) != wanted.end();
    if (still_wanted) {
      ++it;
      continue;
    }
    RemoveHost(*children_, it->second.names);
    it = hosts_.erase(it);
  }
  for (const auto& spec : wanted) {
    if (hosts_.count(spec.address) == 0) Boot(spec);
  }
}

void NetnsTpuHostFleet::Boot(const TpuHostSpec& spec) {
  Host host{spec, NamesFor(spec, kHostsDir), -1, ""};
  // A host that fails to boot stays listed with its error (and is not retried on every request).
  if (auto status = CreateHostNetwork(*children_, spec, host.names); !status) {
    host.error = status.error().message;
  } else if (auto pid = StartHost(*children_, spec, host.names, host_path_, with_sshd_); !pid) {
    host.error = pid.error().message;
  } else {
    host.pid = *pid;
  }
  if (!host.error.empty()) std::cerr << "emulator: TPU host " << host.names.netns << ": " << host.error << "\n";
  hosts_.emplace(spec.address, std::move(host));
}

json NetnsTpuHostFleet::Describe() {
  std::lock_guard lock(mutex_);
  json hosts = json::array();
  for (const auto& [address, host] : hosts_) {
    json entry = {{"node", host.spec.node_name},
                  {"worker", host.spec.worker},
                  {"address", address},
                  {"hostname", host.spec.hostname},
                  {"chips", host.spec.chips},
                  {"namespace", host.names.netns},
                  {"log", host.names.host_dir + "/startup-script.log"},
                  {"pid", host.pid}};
    if (!host.error.empty()) {
      entry["state"] = "FAILED";
      entry["error"] = host.error;
    } else if (auto code = children_->ExitCode(host.pid)) {
      entry["state"] = "STARTUP_SCRIPT_DONE";
      entry["exitCode"] = *code;
    } else {
      entry["state"] = "STARTUP_SCRIPT_RUNNING";
    }
    hosts.push_back(std::move(entry));
  }
  return hosts;
}

core::Result<std::string> NetnsTpuHostFleet::StartupLog(const std::string& node_name, int worker) {
  std::string path;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [address, host] : hosts_) {
      if (host.spec.node_name == node_name && host.spec.worker == worker) path = host.names.host_dir;
    }
  }
  if (path.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kNotFound,
                                        "no TPU host " + node_name + " worker " + std::to_string(worker)));
  }
  auto text = core::ReadFile(path + "/startup-script.log", "startup-script.log", 64 * core::kMiB);
  if (!text) return core::Fail(text.error());
  constexpr size_t kTail = 1 << 20;
  return text->size() > kTail ? text->substr(text->size() - kTail) : *text;
}

core::Result<std::unique_ptr<TpuHostFleet>> CreateNetnsTpuHostFleet(std::string host_path) {
  auto fleet = NetnsTpuHostFleet::Create(std::move(host_path));
  if (!fleet) return core::Fail(fleet.error());
  return std::unique_ptr<TpuHostFleet>(std::move(*fleet));
}

}  // namespace tputrain::emulator
