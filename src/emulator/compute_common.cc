#include "compute_common.h"

#include "operations.h"

namespace tputrain::emulator {

using core::ErrorKind;
using nlohmann::json;

namespace {

std::string Header(const ApiRequest& request, const std::string& name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? std::string() : it->second;
}

}  // namespace

// Google answers https://www.googleapis.com/compute/v1/..., which gcloud maps to its endpoint
// the same way.
std::string ComputeApiBase(const Call& call) {
  std::string host = Header(call.request, "host");
  std::string scheme = Header(call.request, "x-forwarded-proto");
  return (scheme.empty() ? "http" : scheme) + "://" + (host.empty() ? "127.0.0.1" : host) + "/compute/v1/";
}

ApiResponse ComputeNotFound(const std::string& path) {
  return ErrorFor(ErrorShape::kComputeLegacy, ErrorKind::kNotFound, "The resource '" + path + "' was not found");
}

json& StartComputeOperation(Call& call, const std::string& scope, const std::string& type,
                            const std::string& target_link, const std::string& id) {
  const std::string name = NewOperationId(call.world, call.now_ms);
  const std::string link = ComputeApiBase(call) + scope + "operations/" + name;
  json op = {{"kind", "compute#operation"},
             {"id", std::to_string(ProjectNumber(name))},
             {"name", name},
             {"operationType", type},
             {"targetLink", target_link},
             {"targetId", id},
             {"status", "RUNNING"},
             {"user", "emulator@" + call.args[0] + ".iam.gserviceaccount.com"},
             {"progress", 0},
             {"insertTime", Rfc3339(call.now_ms)},
             {"startTime", Rfc3339(call.now_ms)},
             {"selfLink", link}};
  // A zonal operation names its zone, which is how gcloud knows to poll zoneOperations.
  if (auto zones = scope.find("/zones/"); zones != std::string::npos) {
    op["zone"] = ComputeApiBase(call) + scope.substr(0, scope.size() - 1);
  }
  // A regional one its region: gcloud then polls regionOperations.
  if (auto regions = scope.find("/regions/"); regions != std::string::npos) {
    op["region"] = ComputeApiBase(call) + scope.substr(0, scope.size() - 1);
  }
  StartOperationTimer(op, call);
  call.mutated = true;
  auto& ops = call.world["computeOperations"];
  ops[scope + "operations/" + name] = std::move(op);
  return ops[scope + "operations/" + name];
}

ApiResponse GetComputeOperation(Call& call, const std::string& scope, const std::string& name) {
  const std::string path = scope + "operations/" + name;
  auto& ops = call.world["computeOperations"];
  auto it = ops.find(path);
  if (it == ops.end()) return ComputeNotFound(path);
  return JsonReply(Public(*it));
}

void StepComputeOperation(json& world, json& op, int64_t at_ms, const EmulatorConfig&) {
  EndSteps(op);
  op["status"] = "DONE";
  op["progress"] = 100;
  op["endTime"] = Rfc3339(at_ms);
  // The target's key is its link's path after /compute/v1/.
  const std::string link = op.value("targetLink", "");
  const auto at = link.find("/compute/v1/");
  if (at == std::string::npos) return;
  const std::string key = link.substr(at + 12);
  for (const char* section : {"firewalls", "reservations", "resourcePolicies"}) {
    auto all = world.find(section);
    if (all == world.end() || !all->contains(key)) continue;
    if (op.value("operationType", "") == "delete") {
      all->erase(key);
    } else if ((*all)[key].contains("status")) {
      (*all)[key]["status"] = "READY";
    }
  }
}

}  // namespace tputrain::emulator
