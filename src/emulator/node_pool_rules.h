#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/api.h"

namespace tputrain::emulator {

// GKE's TPU node-pool rules: a TPU machine type must be known, its placementPolicy.tpuTopology
// must exist for it, and initialNodeCount must equal the slice's host count (chips / chips per VM).
// `field` names the pool in messages ("node_pool", "cluster.node_pools[0]"). Returns the 400
// reply when the pool breaks a rule.
std::optional<ApiResponse> CheckTpuNodePool(const nlohmann::json& pool, const std::string& field);

// GKE's boot disk rule: config.diskSizeGb, when given, from 10 GB (NodeConfig's documented
// smallest) to 65536 GB (a Persistent Disk's 64 TiB). Any machine type, CPU or TPU.
std::optional<ApiResponse> CheckNodePoolDisk(const nlohmann::json& pool, const std::string& field);

}  // namespace tputrain::emulator
