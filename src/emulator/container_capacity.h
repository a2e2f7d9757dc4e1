#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/handlers.h"

// GKE's side of capacity (capacity.h): the regional quota it checks as a create arrives, the
// stockout a pool's create meets when the zone has too few chips, and the retrying that follows.
namespace tputrain::emulator {

// The synchronous 403 GKE answers when the TPU pools of `pools` (an array; a cluster's or the one
// new pool) would pass Compute's regional TPU quota; nothing when they fit.
std::optional<ApiResponse> GkeQuotaError(const nlohmann::json& world, const std::string& project,
                                         const nlohmann::json& cluster, const nlohmann::json& pools);

// GKE's synchronous answers for a pool with a specific reservation that cannot hold it: 404 when
// the reservation is not in the pool's zone, 429 when it has too few VMs of the pool's machine type
// free (reservations.h); nothing when it can, or names none.
std::optional<ApiResponse> GkeReservationError(const nlohmann::json& world, const std::string& cluster_key,
                                               const nlohmann::json& cluster, const nlohmann::json& pools);

// Whether the zones lack the chips for all of `pools` of `cluster`.
bool PoolsStockOut(const nlohmann::json& world, const nlohmann::json& cluster, const nlohmann::json& pools);

// A pool create that a stockout ended keeps being retried for config.stockout_retry: its
// operation, DONE, still has a step (operations.h); the pool turns RUNNING if the chips free up.
// Meanwhile the cluster takes no other change: this is that operation, if any.
const nlohmann::json* RetryingOperation(const nlohmann::json& world, const std::string& cluster_key);
ApiResponse IncompatibleOperation(const nlohmann::json& op);

}  // namespace tputrain::emulator
