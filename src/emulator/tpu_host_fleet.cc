#include "tputrain/emulator/tpu_host_fleet.h"

#include "tpu_guest_attributes.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/emulator/tpu_metadata.h"

namespace tputrain::emulator {

using nlohmann::json;

std::vector<TpuHostSpec> WantedTpuHosts(const json& world) {
  std::vector<TpuHostSpec> wanted;
  const json nodes = world.value("tpuNodes", json::object());
  for (const auto& [name, node] : nodes.items()) {
    if (node.value("state", "") != "READY") continue;
    auto slice = catalog::FindSliceType(node.value("acceleratorType", ""));
    const json endpoints = node.value("networkEndpoints", json::array());
    const json metadata = node.value("metadata", json::object());
    for (size_t worker = 0; worker < endpoints.size(); ++worker) {
      TpuHostSpec host;
      host.node_name = name;
      host.worker = static_cast<int>(worker);
      host.address = endpoints[worker].value("ipAddress", "");
      host.hostname = TpuHostname(name, host.worker);
      host.chips = slice ? slice->chips_per_host : 0;
      host.startup_script = metadata.value("startup-script", "");
      wanted.push_back(std::move(host));
    }
  }
  return wanted;
}

bool ReportBootedHostnames(json& world, const std::vector<TpuHostSpec>& booted) {
  bool stored = false;
  if (!world.contains("tpuNodes")) return false;
  json& nodes = world["tpuNodes"];
  for (const auto& host : booted) {
    auto node = nodes.find(host.node_name);
    if (node == nodes.end() || node->value("state", "") != "READY") continue;  // deleted meanwhile
    const json endpoints = node->value("networkEndpoints", json::array());
    if (host.worker < 0 || static_cast<size_t>(host.worker) >= endpoints.size() ||
        endpoints[host.worker].value("ipAddress", "") != host.address) {
      continue;
    }
    // gcloud (tpu_vm/ssh.py GetFromGuestAttributes) matches the key alone, whatever the namespace.
    if (FindGuestAttribute(*node, host.worker, kHostnameNamespace, "hostname")) continue;
    StoreGuestAttribute(*node, host.worker, kHostnameNamespace, "hostname", host.hostname);
    stored = true;
  }
  return stored;
}

}  // namespace tputrain::emulator
