#include <regex>

#include "compute_common.h"
#include "node_pool_rules.h"
#include "operations.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// Compute Engine v1 regional resource policies (resourcePolicies.insert/get/list/delete, as
// `gcloud compute resource-policies create workload-policy`, describe, list and delete use them)
// and the regional operations they start. A policy a GKE node pool names in
// placementPolicy.policyName is in use: Compute refuses to delete it (400
// resourceInUseByAnotherResource) until the pool is gone.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr ErrorShape kShape = ErrorShape::kComputeLegacy;

std::string RegionPath(const Call& call) { return "projects/" + call.args[0] + "/regions/" + call.args[1] + "/"; }

ApiResponse Invalid(const std::string& message) { return ErrorFor(kShape, ErrorKind::kInvalidArgument, message); }

ApiResponse InsertResourcePolicy(Call& call) {
  ApiResponse error;
  auto body = call.Body("compute", "ResourcePolicy", kShape, error);
  if (!body) return error;
  static const std::regex kName("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  const std::string name = body->value("name", "");
  if (!MatchesBounded(name, kName)) {
    return Invalid("Invalid value for field 'resource.name': '" + name +
                   "'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
  }
  int kinds = 0;
  for (const char* kind : {"snapshotSchedulePolicy", "groupPlacementPolicy", "instanceSchedulePolicy",
                           "diskConsistencyGroupPolicy", "workloadPolicy"}) {
    kinds += body->contains(kind) ? 1 : 0;
  }
  if (kinds != 1) {
    return Invalid("Invalid value for field 'resource': ''. Exactly one policy type must be specified.");
  }
  if (body->contains("workloadPolicy")) {
    const json& workload = (*body)["workloadPolicy"];
    if (workload.value("type", "").empty()) {
      return Invalid(
          "Invalid value for field 'resource.workloadPolicy.type': ''. The workload policy type is required.");
    }
    if (workload.contains("acceleratorTopology") && workload.contains("maxTopologyDistance")) {
      return Invalid(
          "Invalid value for field 'resource.workloadPolicy': ''. Only one of accelerator topology and max topology "
          "distance can be set.");
    }
    if (workload.contains("acceleratorTopology") && workload.value("type", "") != "HIGH_THROUGHPUT") {
      return Invalid("Invalid value for field 'resource.workloadPolicy.acceleratorTopology': '" +
                     workload.value("acceleratorTopology", "") +
                     "'. Accelerator topology requires the HIGH_THROUGHPUT type.");
    }
  }
  const std::string key = RegionPath(call) + "resourcePolicies/" + name;
  auto& all = call.world["resourcePolicies"];
  if (all.contains(key))
    return ErrorFor(kShape, ErrorKind::kAlreadyExists, "The resource '" + key + "' already exists");
  json policy = *body;
  policy["kind"] = "compute#resourcePolicy";
  policy["id"] = std::to_string(ProjectNumber(key) * 1000 + NextId(call.world) % 1000);
  policy["creationTimestamp"] = Rfc3339(call.now_ms);
  policy["selfLink"] = ComputeApiBase(call) + key;
  policy["region"] = ComputeApiBase(call) + "projects/" + call.args[0] + "/regions/" + call.args[1];
  policy["status"] = "CREATING";
  const std::string link = policy["selfLink"], id = policy["id"];
  all[key] = std::move(policy);
  return JsonReply(Public(StartComputeOperation(call, RegionPath(call), "insert", link, id)));
}

ApiResponse GetResourcePolicy(Call& call) {
  const std::string key = RegionPath(call) + "resourcePolicies/" + call.args[2];
  auto& all = call.world["resourcePolicies"];
  auto it = all.find(key);
  if (it == all.end()) return ComputeNotFound(key);
  return JsonReply(Public(*it));
}

ApiResponse ListResourcePolicies(Call& call) {
  const std::string prefix = RegionPath(call) + "resourcePolicies/";
  json items = json::array();
  for (const auto& [key, policy] : call.world["resourcePolicies"].items()) {
    if (key.rfind(prefix, 0) == 0) items.push_back(Public(policy));
  }
  json reply = {{"kind", "compute#resourcePolicyList"},
                {"id", prefix.substr(0, prefix.size() - 1)},
                {"selfLink", ComputeApiBase(call) + prefix.substr(0, prefix.size() - 1)}};
  if (!items.empty()) reply["items"] = std::move(items);
  return JsonReply(reply);
}

// resourcePolicies.aggregatedList (gcloud compute resource-policies list): every region's, by region.
ApiResponse AggregatedResourcePolicies(Call& call) {
  const std::string prefix = "projects/" + call.args[0] + "/regions/";
  json items = json::object();
  for (const auto& [key, policy] : call.world["resourcePolicies"].items()) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string region = key.substr(prefix.size(), key.find('/', prefix.size()) - prefix.size());
    items["regions/" + region]["resourcePolicies"].push_back(Public(policy));
  }
  return JsonReply({{"kind", "compute#resourcePolicyAggregatedList"},
                    {"id", "projects/" + call.args[0] + "/aggregated/resourcePolicies"},
                    {"items", items},
                    {"selfLink", ComputeApiBase(call) + "projects/" + call.args[0] + "/aggregated/resourcePolicies"}});
}

ApiResponse DeleteResourcePolicy(Call& call) {
  const std::string key = RegionPath(call) + "resourcePolicies/" + call.args[2];
  auto& all = call.world["resourcePolicies"];
  auto it = all.find(key);
  if (it == all.end()) return ComputeNotFound(key);
  if (auto user = PlacementPolicyUser(call.world, call.args[0], call.args[1], call.args[2])) {
    return StorageError(400, "resourceInUseByAnotherResource",
                        "The resource_policy resource '" + key + "' is already being used by '" + *user + "'");
  }
  (*it)["status"] = "DELETING";
  return JsonReply(
      Public(StartComputeOperation(call, RegionPath(call), "delete", it->value("selfLink", ""), it->value("id", ""))));
}

ApiResponse GetRegionOperation(Call& call) { return GetComputeOperation(call, RegionPath(call), call.args[2]); }

}  // namespace

std::vector<Route> ComputeResourcePolicyRoutes() {
  static const std::string region = "^/compute/v1/projects/([^/]+)/regions/([^/]+)/";
  static const std::string policies = region + "resourcePolicies", policy = policies + "/([^/]+)";
  static const std::string operation = region + "operations/([^/]+)";
  return {
      {"POST", policies + "$", "compute.resourcePolicies.insert", InsertResourcePolicy, kShape, true},
      {"GET", policies + "$", "compute.resourcePolicies.list", ListResourcePolicies, kShape},
      {"GET", "^/compute/v1/projects/([^/]+)/aggregated/resourcePolicies$", "compute.resourcePolicies.aggregatedList",
       AggregatedResourcePolicies, kShape},
      {"GET", policy + "$", "compute.resourcePolicies.get", GetResourcePolicy, kShape},
      {"DELETE", policy + "$", "compute.resourcePolicies.delete", DeleteResourcePolicy, kShape, true},
      {"GET", operation + "$", "compute.regionOperations.get", GetRegionOperation, kShape},
      // As for global operations: wait answers at once with the operation as it stands.
      {"POST", operation + "/wait$", "compute.regionOperations.wait", GetRegionOperation, kShape},
  };
}

}  // namespace tputrain::emulator
