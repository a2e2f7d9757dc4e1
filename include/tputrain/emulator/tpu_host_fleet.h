#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// The hosts behind the emulator's READY TPU VM nodes when they are more than paper
// (--tpu-hosts netns): one interface at the process boundary, NetnsTpuHostFleet the real one.
namespace tputrain::emulator {

// One host of a READY node, as it boots.
struct TpuHostSpec {
  std::string node_name;  // projects/P/locations/Z/nodes/N
  int worker = 0;
  std::string address;  // networkEndpoints[worker].ipAddress: unique while the emulator runs
  std::string hostname;
  int chips = 0;               // /dev/accel0..chips-1
  std::string startup_script;  // metadata startup-script when the node became READY ("" : none)

  bool operator==(const TpuHostSpec& other) const {
    return node_name == other.node_name && worker == other.worker && address == other.address;
  }
};

class TpuHostFleet {
 public:
  virtual ~TpuHostFleet() = default;
  // Boots every host in `wanted` not yet booted, and ends and removes every booted host not in it.
  virtual void Reconcile(const std::vector<TpuHostSpec>& wanted) = 0;
  // The hosts booted: node, worker, namespace, address, hostname, log, pid, state, exitCode.
  virtual nlohmann::json Describe() = 0;
  // What a host's startup script printed so far (its last MiB).
  virtual core::Result<std::string> StartupLog(const std::string& node_name, int worker) = 0;
};

// The hosts of every READY node of `world`, in node and worker order.
std::vector<TpuHostSpec> WantedTpuHosts(const nlohmann::json& world);

// What a TPU VM's guest agent reports once its host is up: the guest attribute `hostname` (namespace
// kHostnameNamespace), the worker's Compute instance name, which gcloud's `tpu-vm ssh
// --tunnel-through-iap` and tputrain's tunnel hand to IAP. Stored for each of `booted` whose node is
// still READY at that address and has not reported it yet; true when anything was stored.
inline constexpr char kHostnameNamespace[] = "tpu";
bool ReportBootedHostnames(nlohmann::json& world, const std::vector<TpuHostSpec>& booted);

}  // namespace tputrain::emulator
