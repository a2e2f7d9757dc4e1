#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capacity.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/handlers.h"

// What the Cloud TPU handlers (tpu.cc, tpu_node_updates.cc) share: names, errors, operations.
namespace tputrain::emulator {

// "v2" or "v2alpha1", from the call's path; the discovery document its bodies are checked against
// ("tpu", "tpu.v2alpha1"); "type.googleapis.com/google.cloud.tpu.<version>.<message>" for an
// operation's response, in the version the operation was started in.
std::string TpuVersion(const Call& call);
std::string TpuSchemaApi(const Call& call);
std::string TpuType(const nlohmann::json& op, const std::string& message);

// "projects/P/locations/L" from the route's first two captures.
std::string TpuParent(const Call& call);
ApiResponse TpuNotFound(const std::string& name);
// Stores a done:false operation on `target` that finishes after the configured latency
// (operations.h), honouring a stockout/stuck fault, and returns it.
nlohmann::json StartTpuOperation(Call& call, const std::string& verb, const std::string& target,
                                 const nlohmann::json& response);

std::optional<ApiResponse> CheckId(const std::string& kind, const std::optional<std::string>& id);
std::optional<ApiResponse> CheckZone(const Call& call);

// READY and HEALTHY, with an endpoint per host (netns host addresses, or documentation ones).
void MakeReady(nlohmann::json& world, nlohmann::json& node, const EmulatorConfig& config);

// Cloud TPU's answers when capacity runs out: the operation error of a create that found no chips
// in `zone`, and the synchronous 429 of a create past the region's quota.
nlohmann::json StockoutStatus(const std::string& zone);
ApiResponse TpuQuotaError(const QuotaShortfall& shortfall, const Call& call);

// How a queued resource's own operations end (create: it starts waiting for resources; delete: it
// and its nodes are gone), at `at_ms` (tpu_queued_resources.cc).
void FinishQueuedOperation(nlohmann::json& world, nlohmann::json& op, const std::string& target, int64_t at_ms);

// Checks a node's accelerator (acceleratorType, or acceleratorConfig's type and topology) and
// returns the slice it names.
core::Result<catalog::TpuSliceType> SliceOf(const nlohmann::json& node);
// What Cloud TPU refuses of a node it could otherwise parse: a generation it does not offer
// (tpu7x: "use GKE or Compute Engine") and an empty runtime version. `field` names the node in the
// answer ("node", "node_spec[0].node").
std::optional<ApiResponse> CheckCloudTpuNode(const nlohmann::json& node, const catalog::TpuSliceType& slice,
                                             const std::string& field);
// The node ids one nodeSpec of a queued resource asks for: its nodeId, or with multisliceParams
// nodeCount ids "<nodeIdPrefix>-0".."<nodeIdPrefix>-<nodeCount-1>" (one slice each).
core::Result<std::vector<std::string>> NodeIdsOf(const nlohmann::json& spec);

}  // namespace tputrain::emulator
