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

void Finish(json& world, json& op, int64_t now_ms, const EmulatorConfig& config) {
  op["status"] = "DONE";
  op["endTime"] = Rfc3339(now_ms);
  bool stockout = IsStockoutFault(op);
  if (stockout) {
    op["statusMessage"] = kStockoutMessage;
    op["error"] = {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)}, {"message", kStockoutMessage}};
  }
  json condition = {{"code", "GCE_STOCKOUT"}, {"message", kStockoutMessage}, {"canonicalCode", "RESOURCE_EXHAUSTED"}};
  std::string cluster_key = op.value("_cluster", "");
  auto& clusters = world["clusters"];
  auto cluster = clusters.find(cluster_key);
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
      (*cluster)["conditions"] = json::array({condition});
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
      pools[i]["conditions"] = json::array({condition});
    } else {
      pools[i]["status"] = "RUNNING";
    }
    return;
  }
}

}  // namespace

void StepContainerOperation(json& world, json& op, int64_t at_ms, const EmulatorConfig& config) {
  EndSteps(op);
  Finish(world, op, at_ms, config);
}

}  // namespace tputrain::emulator
