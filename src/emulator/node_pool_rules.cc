#include "node_pool_rules.h"

#include "tputrain/catalog/gke_versions.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/gcp_location.h"

namespace tputrain::emulator {

using core::ErrorKind;
using nlohmann::json;

namespace {

int64_t AsInt(const json& value, int64_t fallback) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) return std::stoll(value.get<std::string>());
  return fallback;
}

}  // namespace

// TPU machine types name their slice shape with the topology; the node count is the host count.
std::optional<ApiResponse> CheckTpuNodePool(const json& pool, const std::string& field) {
  const json config = pool.value("config", json::object());
  std::string machine = config.value("machineType", "");
  std::string topology = pool.value("placementPolicy", json::object()).value("tpuTopology", "");
  bool tpu_machine = machine.rfind("ct", 0) == 0 || machine.rfind("tpu", 0) == 0;
  if (!tpu_machine) {
    if (!topology.empty()) {
      return Aip193Error(ErrorKind::kInvalidArgument,
                         "Invalid value for field '" + field + ".placement_policy.tpu_topology': \"" + topology +
                             "\". TPU topology is only supported with TPU machine types, not \"" + machine + "\".");
    }
    return std::nullopt;
  }
  if (pool.value("queuedProvisioning", json::object()).value("enabled", false)) {
    // Queued provisioning is for GPUs; TPU slices use flex-start alone.
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Flex start node pools don't support TPUs with queued provisioning.");
  }
  auto one_host = catalog::SingleHostSliceOf(machine);
  if (one_host && !topology.empty() && one_host->generation->workload_policy) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".placement_policy.tpu_topology': \"" + topology +
                           "\". TPU topology is not supported with machine type " + machine +
                           ": a multi-host slice is placed by a workload policy (placement_policy.policy_name).");
  }
  if (topology.empty() && !one_host) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".config.machine_type': \"" + machine +
                           "\". Machine type does not exist or is not a TPU machine type.");
  }
  // Without a topology GKE makes single-host slices, or the slice a workload policy names.
  if (topology.empty()) return std::nullopt;
  auto slice = catalog::FindSliceByMachineType(machine, topology);
  if (!slice) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid TPU configuration for field '" + field + "': " + slice.error().message + ".");
  }
  int64_t count = AsInt(pool.value("initialNodeCount", json(0)), 0);
  // An autoscaled slice (flex-start, or scaled up by workloads) may start empty and grows as one
  // whole slice: its maximum is the slice's node count.
  const json autoscaling = pool.value("autoscaling", json::object());
  if (autoscaling.value("enabled", false)) {
    const int64_t max = AsInt(autoscaling.value("maxNodeCount", autoscaling.value("totalMaxNodeCount", json(0))), 0);
    if (max != slice->hosts) {
      return Aip193Error(ErrorKind::kInvalidArgument, "Maximum node count " + std::to_string(max) +
                                                          " is not a valid size of TPU pod slice with topology " +
                                                          topology + ".");
    }
    if (count == 0) return std::nullopt;
  }
  if (count != slice->hosts) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".initial_node_count': " + std::to_string(count) +
                           ". A node pool of " + machine + " with TPU topology " + topology + " (" +
                           std::to_string(slice->chips) + " chips, " + std::to_string(slice->chips_per_host) +
                           " per node) must have exactly " + std::to_string(slice->hosts) + " node" +
                           (slice->hosts == 1 ? "" : "s") + ".");
  }
  return std::nullopt;
}

std::optional<std::string> PlacementPolicyUser(const json& world, const std::string& project, const std::string& region,
                                               const std::string& name) {
  const std::string prefix = "projects/" + project + "/locations/";
  const json clusters = world.value("clusters", json::object());  // held: items() of a temporary dangles
  for (const auto& [key, cluster] : clusters.items()) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string location = key.substr(prefix.size(), key.find('/', prefix.size()) - prefix.size());
    if (core::RegionOf(location) != region) continue;
    for (const auto& pool : cluster.value("nodePools", json::array())) {
      if (pool.value("placementPolicy", json::object()).value("policyName", "") == name) {
        return key + "/nodePools/" + pool.value("name", "");
      }
    }
  }
  return std::nullopt;
}

std::optional<ApiResponse> CheckPlacementPolicy(const json& world, const std::string& project,
                                                const std::string& location, const json& pool,
                                                const std::string& field) {
  const std::string name = pool.value("placementPolicy", json::object()).value("policyName", "");
  if (name.empty()) return std::nullopt;
  const std::string key = "projects/" + project + "/regions/" + core::RegionOf(location) + "/resourcePolicies/" + name;
  const json policies = world.value("resourcePolicies", json::object());
  auto policy = policies.find(key);
  if (policy == policies.end()) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value for field '" + field +
                                                        ".placement_policy.policy_name': \"" + name +
                                                        "\". Resource policy " + key + " was not found.");
  }
  const std::string machine = pool.value("config", json::object()).value("machineType", "");
  auto one_host = catalog::SingleHostSliceOf(machine);
  if (!one_host) return std::nullopt;  // a placement policy for VMs of another kind
  const json workload = policy->value("workloadPolicy", json::object());
  const std::string topology = workload.value("acceleratorTopology", "");
  if (!policy->contains("workloadPolicy") || topology.empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".placement_policy.policy_name': \"" + name +
                           "\". A TPU slice node pool needs a workload policy with an accelerator topology.");
  }
  auto slice = catalog::FindSliceByMachineType(machine, topology);
  if (!slice) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid TPU configuration for field '" + field +
                                                        "': the workload policy's accelerator topology " + topology +
                                                        ": " + slice.error().message + ".");
  }
  const json autoscaling = pool.value("autoscaling", json::object());
  int64_t count = AsInt(pool.value("initialNodeCount", json(0)), 0);
  if (autoscaling.value("enabled", false)) {
    count = AsInt(autoscaling.value("maxNodeCount", autoscaling.value("totalMaxNodeCount", json(0))), 0);
  }
  if (count != slice->hosts) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Requested invalid target size '" + std::to_string(count) +
                                                        "' for a Managed Instance Group in the gang mode of size '" +
                                                        std::to_string(slice->hosts) +
                                                        "'. Should be equal to the gang size.");
  }
  return std::nullopt;
}

std::optional<ApiResponse> CheckTpuNodeVersion(const json& pool, const std::string& version, const std::string& field) {
  const std::string machine = pool.value("config", json::object()).value("machineType", "");
  auto one_host = catalog::SingleHostSliceOf(machine);
  if (!one_host) return std::nullopt;
  const std::string& minimum = one_host->generation->min_gke_version;
  auto have = catalog::ParseGkeVersion(version);
  auto least = catalog::ParseGkeVersion(minimum);
  if (!have || !least || !catalog::BelowMinimum(*have, *least)) return std::nullopt;
  return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value for field '" + field + ".version': \"" + version +
                                                      "\". Machine type " + machine + " requires GKE version " +
                                                      minimum + " or later.");
}

std::optional<ApiResponse> CheckNodePoolDisk(const json& pool, const std::string& field) {
  const json config = pool.value("config", json::object());
  auto size = config.find("diskSizeGb");
  if (size == config.end()) return std::nullopt;
  // int32 in the API: a number, or its decimal string as proto3 JSON allows.
  std::optional<int64_t> gb;
  if (size->is_number_integer()) gb = size->get<int64_t>();
  if (size->is_string()) {
    const std::string text = size->get<std::string>();
    if (!text.empty() && text.size() < 12 && text.find_first_not_of("0123456789") == std::string::npos) {
      gb = std::stoll(text);
    }
  }
  if (!gb) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value at '" + field + ".config.disk_size_gb' (TYPE_INT32), " + size->dump());
  }
  if (*gb < 10 || *gb > 65536) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value for field '" + field +
                                                        ".config.disk_size_gb': " + std::to_string(*gb) +
                                                        ". Disk size must be between 10 GB and 65536 GB.");
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
