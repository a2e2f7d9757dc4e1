#include "container_capacity.h"

#include <cstdio>
#include <vector>

#include "capacity.h"
#include "operations.h"

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
