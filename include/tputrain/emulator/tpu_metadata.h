#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/api.h"

// The metadata server of the emulator's TPU VM hosts (--tpu-hosts netns): what
// http://metadata.google.internal/computeMetadata/v1/ answers a host, told apart by the address
// the request comes from, as Compute Engine's server does.
namespace tputrain::emulator {

struct TpuHostRef {
  std::string node_name;  // projects/P/locations/Z/nodes/N
  int worker = 0;
};

// The READY node and worker whose networkEndpoints hold `address`.
std::optional<TpuHostRef> FindTpuHost(const nlohmann::json& world, const std::string& address);

// The address of the READY host whose Compute instance name (TpuHostname) is `instance`, in
// `project` and `zone`: where the IAP relay connects for an instance-mode tunnel.
std::optional<std::string> FindTpuHostByInstance(const nlohmann::json& world, const std::string& project,
                                                 const std::string& zone, const std::string& instance);

// The worker's hostname: t1v-n-<8 hex digits of the node>-w-<worker>, as Cloud TPU names them.
std::string TpuHostname(const std::string& node_name, int worker);

// instance/attributes as the host sees them: the node's own metadata (startup-script, ...) and
// what Cloud TPU adds: accelerator-type, agent-worker-number, instance-id, worker-network-endpoints,
// tpu-env. Cloud TPU's keys win over user metadata of the same name.
nlohmann::json TpuInstanceAttributes(const nlohmann::json& node, int worker);

// Answers one metadata request from `source_address`: GET of instance/attributes/[KEY],
// instance/{hostname,name,id,zone}, instance/network-interfaces/0/ip, project/{project-id,
// numeric-project-id}, instance/guest-attributes/NAMESPACE/KEY, and PUT of the last (stored in the
// node for nodes.getGuestAttributes; `mutated` is then set). Requires `Metadata-Flavor: Google`.
ApiResponse AnswerMetadata(nlohmann::json& world, const ApiRequest& request, const std::string& source_address,
                           bool& mutated);

}  // namespace tputrain::emulator
