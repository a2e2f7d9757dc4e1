#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/api.h"

namespace tputrain::emulator {

// GKE's TPU node-pool rules: a TPU machine type must be known, its placementPolicy.tpuTopology
// must exist for it, and initialNodeCount must equal the slice's host count (chips / chips per VM).
// A generation placed by a workload policy (tpu7x) takes no tpuTopology at all: its multi-host
// slices name a policy (CheckPlacementPolicy). `field` names the pool in messages ("node_pool",
// "cluster.node_pools[0]"). Returns the 400 reply when the pool breaks a rule.
std::optional<ApiResponse> CheckTpuNodePool(const nlohmann::json& pool, const std::string& field);

// placementPolicy.policyName: a resource policy of the pool's project and region (the cluster's
// `location`), else 400 INVALID_ARGUMENT as the API documents. For a TPU machine type it must be a
// workload policy whose acceleratorTopology the machine type makes, and the node count must be
// that slice's hosts: the gang size of the managed instance group GKE makes (xpk #751's error).
std::optional<ApiResponse> CheckPlacementPolicy(const nlohmann::json& world, const std::string& project,
                                                const std::string& location, const nlohmann::json& pool,
                                                const std::string& field);

// The oldest GKE version of the pool's TPU generation (tpu7x: 1.34.0-gke.2201000) against the
// version its nodes would run.
std::optional<ApiResponse> CheckTpuNodeVersion(const nlohmann::json& pool, const std::string& version,
                                               const std::string& field);

// The node pool ("projects/P/locations/L/clusters/C/nodePools/N") that names resource policy
// `name` of `project` in `region`, if any: such a policy is in use.
std::optional<std::string> PlacementPolicyUser(const nlohmann::json& world, const std::string& project,
                                               const std::string& region, const std::string& name);

// GKE's boot disk rule: config.diskSizeGb, when given, from 10 GB (NodeConfig's documented
// smallest) to 65536 GB (a Persistent Disk's 64 TiB). Any machine type, CPU or TPU.
std::optional<ApiResponse> CheckNodePoolDisk(const nlohmann::json& pool, const std::string& field);

}  // namespace tputrain::emulator
