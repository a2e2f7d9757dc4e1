#include "container_capacity.h"
#include "operations.h"
#include "tputrain/emulator/handlers.h"

// How GKE operations end: the resource they act on changes state with them.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr char kStockoutMessage[] =
    "Google Compute Engine: Not enough resources available to fulfill the request.  Try a different zone, or try "
    "again later.";

const json kCondition = {
    {"code", "GCE_STOCKOUT"}, {"message", kStockoutMessage}, {"canonicalCode", "RESOURCE_EXHAUSTED"}};

// Whether the create `op` runs out of chips: a stockout fault says so, or the zones have too few
// free for the pools it creates.
bool StocksOut(const json& world, const json& op, const json& cluster) {
  if (IsStockoutFault(op)) return true;
  const std::string type = op.value("operationType", "");
  if (type == "CREATE_CLUSTER") return PoolsStockOut(world, cluster, cluster.value("nodePools", json::array()));
  if (type != "CREATE_NODE_POOL") return false;
  for (const auto& pool : cluster.value("nodePools", json::array())) {
    if (pool.value("name", "") == op.value("_pool", "")) return PoolsStockOut(world, cluster, json::array({pool}));
  }
  return false;
}

void Finish(json& world, json& op, int64_t now_ms, const EmulatorConfig& config) {
  op["status"] = "DONE";
  op["endTime"] = Rfc3339(now_ms);
  std::string cluster_key = op.value("_cluster", "");
  auto& clusters = world["clusters"];
  auto cluster = clusters.find(cluster_key);
  const bool stockout = IsStockoutFault(op) || (cluster != clusters.end() && StocksOut(world, op, *cluster));
  if (stockout) {
    op["statusMessage"] = kStockoutMessage;
    op["error"] = {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)}, {"message", kStockoutMessage}};
    op[op.value("operationType", "") == "CREATE_CLUSTER" ? "clusterConditions" : "nodepoolConditions"] =
        json::array({kCondition});
  }
  if (cluster == clusters.end()) return;
  std::string type = op.value("operationType", "");
  std::string pool_name = op.value("_pool", "");
  if (type == "DELETE_CLUSTER") {
    clusters.erase(cluster);
    return;
  }
  auto& pools = (*cluster)["nodePools"];
  if (type == "CREATE_CLUSTER") {
    (*cluster)["status"] = stockout ? "ERROR" : "RUNNING";
    if (stockout) {
      (*cluster)["statusMessage"] = kStockoutMessage;
      (*cluster)["conditions"] = json::array({kCondition});
    } else {
      std::string endpoint = config.cluster_endpoint.empty() ? "127.0.0.1" : config.cluster_endpoint;
      (*cluster)["endpoint"] = endpoint;
    }
    for (auto& pool : pools) pool["status"] = stockout ? "ERROR" : "RUNNING";
    return;
  }
  for (size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].value("name", "") != pool_name) continue;
    if (type == "DELETE_NODE_POOL") {
      pools.erase(i);
    } else if (stockout) {
      pools[i]["status"] = "ERROR";
      pools[i]["statusMessage"] = kStockoutMessage;
      pools[i]["conditions"] = json::array({kCondition});
      // GKE goes on trying to bring the pool up, and holds the cluster while it does.
      if (config.stockout_retry.count() > 0) {
        op["_retryUntil"] = now_ms + config.stockout_retry.count();
        WaitStep(op, 0, op["_retryUntil"].get<int64_t>());
      }
    } else {
      pools[i]["status"] = "RUNNING";
    }
    return;
  }
}

// A stocked-out pool's retry: RUNNING as soon as the chips are there, given up at the deadline.
void Retry(json& world, json& op, int64_t at_ms) {
  auto cluster = world["clusters"].find(op.value("_cluster", ""));
  json* pool = nullptr;
  if (cluster != world["clusters"].end()) {
    for (auto& each : (*cluster)["nodePools"]) {
      if (each.value("name", "") == op.value("_pool", "")) pool = &each;
    }
  }
  const int64_t until = op.value("_retryUntil", int64_t{0});
  if (pool == nullptr || (*pool).value("status", "") != "ERROR" || at_ms >= until) {
    EndSteps(op);
    return;
  }
  if (PoolsStockOut(world, *cluster, json::array({*pool}))) return;  // still waiting
  EndSteps(op);
  (*pool)["status"] = "RUNNING";
  pool->erase("statusMessage");
  pool->erase("conditions");
}

}  // namespace

void StepContainerOperation(json& world, json& op, int64_t at_ms, const EmulatorConfig& config) {
  if (op.value("status", "") == "DONE") {
    Retry(world, op, at_ms);
    return;
  }
  EndSteps(op);
  Finish(world, op, at_ms, config);
}

}  // namespace tputrain::emulator
