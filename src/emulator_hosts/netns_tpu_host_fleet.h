#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "child_processes.h"
#include "tpu_host_netns.h"
#include "tputrain/emulator/tpu_host_fleet.h"

namespace tputrain::emulator {

// Each host a network namespace on the emulator's bridge, running its node's startup script
// (tpu_host_netns.h has the steps). One per machine: Create takes a lock and removes what a
// killed emulator left; destruction ends every host and removes the bridge.
class NetnsTpuHostFleet final : public TpuHostFleet {
 public:
  // `host_path`: its bin/ leads the hosts' PATH. Fails, in one line, without root or when another
  // emulator runs hosts.
  static core::Result<std::unique_ptr<NetnsTpuHostFleet>> Create(std::string host_path);
  ~NetnsTpuHostFleet() override;

  void Reconcile(const std::vector<TpuHostSpec>& wanted) override;
  nlohmann::json Describe() override;
  core::Result<std::string> StartupLog(const std::string& node_name, int worker) override;

 private:
  struct Host {
    TpuHostSpec spec;
    TpuHostNames names;
    pid_t pid = -1;
    std::string error;  // why it did not boot
  };
  NetnsTpuHostFleet(std::string host_path, int lock_fd);
  // sshd per host when OpenSSH's server is installed (said once when it is not).
  void FindSshd();
  void Boot(const TpuHostSpec& spec);

  std::string host_path_;
  bool with_sshd_ = false;
  int lock_fd_;
  std::unique_ptr<ChildProcesses> children_;
  std::mutex mutex_;
  std::map<std::string, Host> hosts_;  // by address
};

}  // namespace tputrain::emulator
