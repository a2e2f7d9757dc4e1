#include "capacity.h"
#include "operations.h"
#include "tputrain/core/json.h"
#include "tputrain/emulator/emulator.h"

// The capacity admin endpoints: what the zones have and hold (GET /_emulator/capacity), limits
// changed at run time (POST /_emulator/capacity), and Spot preemption on demand
// (POST /_emulator/preempt).
namespace tputrain::emulator {

using nlohmann::json;

namespace {

constexpr size_t kMaxAdminBody = 64 * 1024;

core::Result<json> AdminBody(const ApiRequest& request) {
  return core::ParseJson(request.body, "the request body", {.max_bytes = kMaxAdminBody, .max_depth = 8});
}

// A Spot (or preemptible) TPU node stops as Google preempts it: PREEMPTED, its chips free again.
// Nodes of a queued resource go together, and the queued resource is SUSPENDED by the service.
ApiResponse Preempt(json& world, const std::string& name) {
  auto& nodes = world["tpuNodes"];
  auto node = nodes.find(name);
  if (node == nodes.end()) return Aip193Error(core::ErrorKind::kNotFound, "No TPU node " + name);
  auto demand = TpuNodeDemand(*node);
  if (!demand || demand->mode != CapacityMode::kSpot) {
    return Aip193Error(core::ErrorKind::kFailedPrecondition,
                       "TPU node " + name + " is not Spot or preemptible: Google does not preempt it");
  }
  if (node->value("state", "") != "READY") {
    return Aip193Error(core::ErrorKind::kFailedPrecondition,
                       "TPU node " + name + " is " + node->value("state", "") + ", not READY");
  }
  std::vector<std::string> names = {name};
  const std::string queued = node->value("queuedResource", "");
  auto resource = world["queuedResources"].find(queued);
  if (!queued.empty() && resource != world["queuedResources"].end()) {
    (*resource)["state"] = {{"state", "SUSPENDED"}, {"stateInitiator", "SERVICE"}};
    for (const auto& [other, value] : nodes.items()) {
      if (other != name && value.value("queuedResource", "") == queued) names.push_back(other);
    }
  }
  for (const auto& each : names) {
    nodes[each]["state"] = "PREEMPTED";
    nodes[each].erase("health");
  }
  return JsonReply({{"preempted", names}});
}

}  // namespace

ApiResponse Emulator::HandleCapacityAdmin(const ApiRequest& request) {
  std::lock_guard lock(mutex_);
  if (Advance(world_, NowMs(), config_)) SaveLocked();
  if (request.method == "GET" && request.path == "/_emulator/capacity") return JsonReply(CapacityReport(world_));
  if (request.method == "POST" && request.path == "/_emulator/capacity") {
    auto change = AdminBody(request);
    if (!change) return Aip193Error(core::ErrorKind::kInvalidArgument, change.error().message);
    if (auto applied = ApplyCapacity(world_, *change); !applied) {
      return Aip193Error(core::ErrorKind::kInvalidArgument, applied.error().message);
    }
    // What waits for chips may go now, at this moment.
    Advance(world_, NowMs(), config_);
    SaveLocked();
    return JsonReply(CapacityReport(world_));
  }
  if (request.method == "POST" && request.path == "/_emulator/preempt") {
    auto body = AdminBody(request);
    if (!body) return Aip193Error(core::ErrorKind::kInvalidArgument, body.error().message);
    if (!body->is_object() || !body->value("node", json()).is_string()) {
      return Aip193Error(core::ErrorKind::kInvalidArgument,
                         "expected {\"node\": \"projects/P/locations/ZONE/nodes/NAME\"}");
    }
    ApiResponse response = Preempt(world_, (*body)["node"].get<std::string>());
    if (response.status == 200) {
      Advance(world_, NowMs(), config_);
      SaveLocked();
    }
    return response;
  }
  return Aip193Error(core::ErrorKind::kNotFound, "Unknown emulator admin path " + request.path +
                                                     " (GET or POST /_emulator/capacity, POST /_emulator/preempt)");
}

}  // namespace tputrain::emulator
