#include "tpu_node_common.h"

#include <map>
#include <regex>

#include "operations.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/tpu_host_network.h"

namespace tputrain::emulator {

using core::ErrorKind;
using nlohmann::json;

std::string TpuVersion(const Call& call) { return call.request.path.rfind("/v2alpha1/", 0) == 0 ? "v2alpha1" : "v2"; }

std::string TpuSchemaApi(const Call& call) { return TpuVersion(call) == "v2" ? "tpu" : "tpu.v2alpha1"; }

std::string TpuType(const json& op, const std::string& message) {
  const std::string version = op.value("metadata", json::object()).value("apiVersion", "v2");
  return "type.googleapis.com/google.cloud.tpu." + version + "." + message;
}

std::string TpuParent(const Call& call) { return "projects/" + call.args[0] + "/locations/" + call.args[1]; }

ApiResponse TpuNotFound(const std::string& name) {
  return Aip193Error(ErrorKind::kNotFound, "Resource '" + name + "' was not found",
                     json::array({ResourceInfoDetail("tpu.googleapis.com", name)}));
}

json StartTpuOperation(Call& call, const std::string& verb, const std::string& target, const json& response) {
  std::string name = TpuParent(call) + "/operations/" + NewOperationId(call.world, call.now_ms);
  const std::string version = TpuVersion(call);
  json op = {{"name", name},
             {"metadata",
              {{"@type", "type.googleapis.com/google.cloud.tpu." + version + ".OperationMetadata"},
               {"createTime", Rfc3339(call.now_ms)},
               {"target", target},
               {"verb", verb},
               {"cancelRequested", false},
               {"apiVersion", version}}},
             {"done", false},
             {"_target", target},
             {"_response", response}};
  StartOperationTimer(op, call);
  call.world["tpuOperations"][name] = op;
  call.mutated = true;
  return op;
}

core::Result<catalog::TpuSliceType> SliceOf(const json& node) {
  if (node.contains("acceleratorType")) return catalog::FindSliceType(node.value("acceleratorType", ""));
  if (node.contains("acceleratorConfig")) {
    const json& config = node["acceleratorConfig"];
    static const std::map<std::string, std::string> kFamilies = {
        {"V4", "v4"}, {"V5LITE_POD", "v5e"}, {"V5P", "v5p"}, {"V6E", "v6e"}};
    auto family = kFamilies.find(config.value("type", ""));
    const catalog::TpuGeneration* generation =
        family == kFamilies.end() ? nullptr : catalog::FindGeneration(family->second);
    if (generation == nullptr) {
      return core::Fail(
          core::Error::Usage("unsupported acceleratorConfig.type " + config.value("type", std::string())));
    }
    return catalog::FindSliceByTopology(*generation, config.value("topology", ""));
  }
  return core::Fail(core::Error::Usage("one of acceleratorType or acceleratorConfig is required"));
}

std::optional<ApiResponse> CheckCloudTpuNode(const json& node, const catalog::TpuSliceType& slice,
                                             const std::string& field) {
  if (slice.generation != nullptr && !slice.generation->cloud_tpu_api) {
    const std::string message = "CloudTpu received an invalid AcceleratorType \"" + slice.accelerator_type +
                                "\": the Cloud TPU API does not offer " + slice.generation->family +
                                "; use GKE or Compute Engine.";
    return Aip193Error(ErrorKind::kInvalidArgument, message,
                       json::array({BadRequestDetail(field + ".accelerator_type", message)}));
  }
  if (node.contains("runtimeVersion") && node.value("runtimeVersion", "").empty()) {
    const std::string message =
        "Invalid value for field '" + field + ".runtime_version': \"\". A runtime version is required.";
    return Aip193Error(ErrorKind::kInvalidArgument, message,
                       json::array({BadRequestDetail(field + ".runtime_version", "A runtime version is required.")}));
  }
  return std::nullopt;
}

core::Result<std::vector<std::string>> NodeIdsOf(const json& spec) {
  // v2 names the parameters multisliceParams, v2alpha1 multiNodeParams.
  const char* field = spec.contains("multiNodeParams") ? "multiNodeParams" : "multisliceParams";
  const std::string shown = spec.contains("multiNodeParams") ? "multi_node_params" : "multislice_params";
  const bool multislice = spec.contains(field);
  const std::string node_id = spec.value("nodeId", "");
  if (multislice == !node_id.empty()) {
    return core::Fail(core::Error::Usage("exactly one of node_spec.node_id and node_spec." + shown + " is required"));
  }
  if (!multislice) return std::vector<std::string>{node_id};
  const json& params = spec[field];
  const std::string prefix = params.value("nodeIdPrefix", "");
  const json count = params.value("nodeCount", json());
  if (prefix.empty()) return core::Fail(core::Error::Usage(shown + ".node_id_prefix is required"));
  if (!count.is_number_integer() || count.get<int64_t>() < 2 || count.get<int64_t>() > 256) {
    return core::Fail(core::Error::Usage(shown + ".node_count must be between 2 and 256"));
  }
  std::vector<std::string> ids;
  for (int64_t i = 0; i < count.get<int64_t>(); ++i) ids.push_back(prefix + "-" + std::to_string(i));
  return ids;
}

std::optional<ApiResponse> CheckId(const std::string& kind, const std::optional<std::string>& id) {
  static const std::regex kId("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  if (!id || id->empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid argument: the " + kind + " id (query parameter) is required.");
  }
  if (!std::regex_match(*id, kId)) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid " + kind + " id \"" + *id +
                           "\": it must be 1-63 lowercase letters, digits or hyphens, start with a letter and end "
                           "with a letter or digit.");
  }
  return std::nullopt;
}

std::optional<ApiResponse> CheckZone(const Call& call) {
  if (core::IsZone(call.args[1])) return std::nullopt;
  return Aip193Error(ErrorKind::kInvalidArgument, "Location \"" + call.args[1] +
                                                      "\" is not a zone; Cloud TPU nodes "
                                                      "live in zones such as us-east5-b.");
}

void MakeReady(json& world, json& node, const EmulatorConfig& config) {
  node["state"] = "READY";
  node["health"] = "HEALTHY";
  json endpoints = json::array();
  int hosts = node.value("_hosts", 1);
  const bool external = node.value("networkConfig", json::object()).value("enableExternalIps", false);
  for (int i = 0; i < hosts; ++i) {
    std::string address;
    if (config.tpu_hosts == TpuHostMode::kNetns) {
      // Addresses on the emulator's host network, never reused while it runs.
      int64_t index = world.value("nextTpuHost", int64_t{0});
      world["nextTpuHost"] = index + 1;
      address = TpuHostAddress(index);
    } else {
      // Documentation addresses (RFC 5737): nothing is reachable there, by design.
      address = "192.0.2." + std::to_string(10 + i);
    }
    json endpoint = {{"ipAddress", address}, {"port", 8470}};
    if (external) {
      // netns hosts: the address this machine reaches them at is the only "external" one there
      // is; on paper, a documentation address (RFC 5737) like the internal ones.
      endpoint["accessConfig"] = {
          {"externalIp", config.tpu_hosts == TpuHostMode::kNetns ? address : "203.0.113." + std::to_string(10 + i)}};
    }
    endpoints.push_back(std::move(endpoint));
  }
  node["networkEndpoints"] = endpoints;
}

json StockoutStatus(const std::string& zone) {
  return {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)},
          {"message", "There is no more capacity in the zone \"" + zone +
                          "\"; you can try in another zone where Cloud TPU Nodes are offered (see "
                          "https://cloud.google.com/tpu/docs/regions) [EID: 0x5ee0e1a7c0de]"}};
}

// The quota's name as Cloud TPU reports it (seen in users' errors for v4, v5e and v6e; v5p and
// tpu7x follow the v6e pattern).
std::string TpuQuotaName(const std::string& generation, CapacityMode mode) {
  const bool spot = mode == CapacityMode::kSpot;
  if (generation == "v4")
    return spot ? "TPUV4sPreemptiblePodPerProjectPerRegionForTPUAPI" : "TPUV4sPodPerProjectPerRegionForTPUAPI";
  if (generation == "v5e") {
    return spot ? "TPUV5sPreemptibleLitepodPerProjectPerRegionForTPUAPI" : "TPUV5sLitepodPerProjectPerRegionForTPUAPI";
  }
  std::string upper;
  for (char c : generation) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "TPU" + upper + (spot ? "Preemptible" : "") + "PerProjectPerRegionForTPUAPI";
}

ApiResponse TpuQuotaError(const QuotaShortfall& shortfall, const Call& call) {
  const std::string quota = TpuQuotaName(shortfall.generation, shortfall.mode);
  const std::string message = "Quota limit '" + quota +
                              "' has been exceeded. Limit: " + std::to_string(shortfall.limit) + " in region " +
                              shortfall.region + ".";
  json violation = {{"subject", "project:" + std::to_string(ProjectNumber(call.args[0]))}, {"description", message}};
  return Aip193Error(ErrorKind::kResourceExhausted, message,
                     json::array({{{"@type", "type.googleapis.com/google.rpc.QuotaFailure"},
                                   {"violations", json::array({violation})}}}));
}

}  // namespace tputrain::emulator
