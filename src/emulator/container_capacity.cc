#include "container_capacity.h"

#include <cstdio>
#include <vector>

#include "capacity.h"
#include "operations.h"
#include "reservations.h"

namespace tputrain::emulator {

using nlohmann::json;

namespace {

std::vector<ChipDemand> DemandOf(const json& cluster, const json& pools) {
  std::vector<ChipDemand> demands;
  for (const auto& pool : pools) {
    for (auto& demand : NodePoolDemand(cluster, pool)) demands.push_back(std::move(demand));
  }
  return demands;
}

std::string Quantity(int64_t value) { return std::to_string(value) + ".0"; }

}  // namespace

std::optional<ApiResponse> GkeQuotaError(const json& world, const std::string& project, const json& cluster,
                                         const json& pools) {
  auto shortfall = QuotaShort(world, QuotaApi::kCompute, DemandOf(cluster, pools));
  if (!shortfall) return std::nullopt;
  // Compute's per-family TPU quota, by the metric's name; Spot capacity has its preemptible twin.
  const std::string resource =
      shortfall->mode == CapacityMode::kSpot ? "PREEMPTIBLE_TPUS_PER_TPU_FAMILY" : "TPUS_PER_TPU_FAMILY";
  const int64_t available = std::max<int64_t>(0, shortfall->limit - shortfall->used);
  return Aip193Error(core::ErrorKind::kPermissionDenied,
                     "Insufficient regional quota to satisfy request: resource \"" + resource +
                         "\": request requires '" + Quantity(shortfall->requested) + "' and is short '" +
                         Quantity(shortfall->requested - available) + "'. project has a quota of '" +
                         Quantity(shortfall->limit) + "' with '" + Quantity(available) +
                         "' available. View and manage quotas at "
                         "https://console.cloud.google.com/iam-admin/quotas?usage=USED&project=" +
                         project + ".");
}

std::optional<ApiResponse> GkeReservationError(const json& world, const std::string& cluster_key, const json& cluster,
                                               const json& pools) {
  for (const auto& pool : pools) {
    auto shortfall = ReservationShort(world, NodePoolReservedDemand(cluster_key, cluster, pool), false);
    if (!shortfall) continue;
    const std::string named = pool["config"]["reservationAffinity"]["values"][0].get<std::string>();
    const std::string& key = shortfall->demand.key;  // projects/P/zones/Z/reservations/R
    const std::string zone = key.substr(key.find("/zones/") + 7, key.find("/reservations/") - key.find("/zones/") - 7);
    const std::string pool_name = pool.value("name", "");
    if (shortfall->problem == ReservationProblem::kMissing) {
      return Aip193Error(core::ErrorKind::kNotFound, "Google Compute Engine: reservation \"" + named +
                                                         "\" not found for node pool \"" + pool_name + "\" at zone \"" +
                                                         zone + "\".");
    }
    return Aip193Error(core::ErrorKind::kResourceExhausted,
                       "Reservation does not have enough resources for the request: specific reservation \"" + named +
                           "\" is insufficient for node pool \"" + pool_name + "\" at zone \"" + zone +
                           "\": required " + std::to_string(shortfall->demand.vms) + " and short of " +
                           std::to_string(shortfall->short_by) + " VM count of machine type " +
                           shortfall->demand.machine_type + ".");
  }
  return std::nullopt;
}

bool PoolsStockOut(const json& world, const json& cluster, const json& pools) {
  return !Fits(world, DemandOf(cluster, pools));
}

const json* RetryingOperation(const json& world, const std::string& cluster_key) {
  auto ops = world.find("containerOperations");
  if (ops == world.end() || !ops->is_object()) return nullptr;
  for (const auto& [id, op] : ops->items()) {
    if (op.value("status", "") == "DONE" && op.value("_cluster", "") == cluster_key && HasPendingStep(op)) return &op;
  }
  return nullptr;
}

ApiResponse IncompatibleOperation(const json& op) {
  return Aip193Error(core::ErrorKind::kFailedPrecondition,
                     "Cluster is running incompatible operation " + op.value("name", "") + ".");
}

}  // namespace tputrain::emulator
