#include <algorithm>

#include "capacity.h"
#include "field_rules.h"
#include "operations.h"
#include "reservations.h"
#include "tpu_node_common.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/emulator/handlers.h"

// Cloud TPU tpu/v2 (and v2alpha1): TPU VM nodes and the long-running operations of nodes and queued
// resources (tpu_queued_resources.cc), which start done:false and finish over the configured latency.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

// The node as Cloud TPU reports it while it is being created.
json NewNode(const Call& call, json node, const std::string& name, const catalog::TpuSliceType& slice) {
  node["name"] = name;
  node["state"] = "CREATING";
  node["createTime"] = Rfc3339(call.now_ms);
  node["apiVersion"] = "V2";
  node["id"] = std::to_string(ProjectNumber(name)) + std::to_string(call.now_ms % 100000);
  if (!node.contains("acceleratorType")) node["acceleratorType"] = slice.accelerator_type;
  if (!node.contains("networkConfig")) node["networkConfig"] = {{"network", "default"}};
  node["_hosts"] = slice.hosts;
  return node;
}

ApiResponse CreateNode(Call& call) {
  ApiResponse error;
  auto body = call.Body(TpuSchemaApi(call), "Node", ErrorShape::kAip193, error);
  if (!body) return error;
  auto node_id = call.request.Param("nodeId");
  if (auto bad = CheckId("node", node_id)) return *bad;
  if (auto bad = CheckZone(call)) return *bad;
  auto slice = SliceOf(*body);
  if (!slice) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid accelerator in Node: " + slice.error().message + ".",
                       json::array({BadRequestDetail("node.accelerator_type", slice.error().message)}));
  }
  if (auto bad = CheckCloudTpuNode(*body, *slice, "node")) return *bad;
  if (auto bad = LabelProblem(body->value("labels", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid labels in Node: " + *bad + ".",
                       json::array({BadRequestDetail("node.labels", *bad)}));
  }
  std::string name = TpuParent(call) + "/nodes/" + *node_id;
  auto& nodes = call.world["tpuNodes"];
  if (nodes.contains(name)) {
    return Aip193Error(ErrorKind::kAlreadyExists, "Resource '" + name + "' already exists",
                       json::array({ResourceInfoDetail("tpu.googleapis.com", name)}));
  }
  json node = NewNode(call, *body, name, *slice);
  // Quota is checked as the call arrives; chips only when the create runs (FinishNodeOperation).
  if (auto demand = TpuNodeDemand(node)) {
    if (auto shortfall = QuotaShort(call.world, QuotaApi::kTpu, {*demand})) return TpuQuotaError(*shortfall, call);
  }
  nodes[name] = std::move(node);
  return JsonReply(Public(StartTpuOperation(call, "create", name, json())));
}

ApiResponse ListNodes(Call& call) {
  json nodes = json::array();
  std::string prefix = call.args[1] == "-" ? "projects/" + call.args[0] + "/locations/" : TpuParent(call) + "/nodes/";
  for (const auto& [name, node] : call.world["tpuNodes"].items()) {
    if (name.rfind(prefix, 0) == 0) nodes.push_back(Public(node));
  }
  json reply = json::object();
  if (!nodes.empty()) reply["nodes"] = nodes;
  return JsonReply(reply);
}

// AcceleratorConfig.type's enum name for a generation.
std::string ConfigType(const std::string& family) {
  if (family == "v5e") return "V5LITE_POD";
  if (family == "v5p") return "V5P";
  if (family == "v6e") return "V6E";
  if (family == "v4") return "V4";
  return "TYPE_UNSPECIFIED";
}

// acceleratorTypes.list: every slice type of the generations the catalog says the zone offers
// (OfferingZonesOf), as "projects/P/locations/Z/acceleratorTypes/TYPE" with its type and topology.
ApiResponse ListAcceleratorTypes(Call& call) {
  json types = json::array();
  for (const auto& generation : catalog::Generations()) {
    const auto& zones = catalog::OfferingZonesOf(generation);
    if (!generation.cloud_tpu_api || std::find(zones.begin(), zones.end(), call.args[1]) == zones.end()) {
      continue;  // tpu7x has no Cloud TPU API
    }
    for (const auto& slice : catalog::SlicesOf(generation)) {
      types.push_back({{"name", TpuParent(call) + "/acceleratorTypes/" + slice.accelerator_type},
                       {"type", slice.accelerator_type},
                       {"acceleratorConfigs",
                        json::array({{{"type", ConfigType(generation.family)}, {"topology", slice.topology}}})}});
    }
  }
  json reply = json::object();
  if (!types.empty()) reply["acceleratorTypes"] = std::move(types);
  return JsonReply(reply);
}

ApiResponse GetNode(Call& call) {
  std::string name = TpuParent(call) + "/nodes/" + call.args[2];
  auto& nodes = call.world["tpuNodes"];
  auto it = nodes.find(name);
  if (it == nodes.end()) return TpuNotFound(name);
  return JsonReply(Public(*it));
}

ApiResponse DeleteNode(Call& call) {
  std::string name = TpuParent(call) + "/nodes/" + call.args[2];
  auto& nodes = call.world["tpuNodes"];
  auto it = nodes.find(name);
  if (it == nodes.end()) return TpuNotFound(name);
  (*it)["state"] = "DELETING";
  return JsonReply(Public(StartTpuOperation(call, "delete", name, json())));
}

ApiResponse GetOperation(Call& call) {
  std::string name = TpuParent(call) + "/operations/" + call.args[2];
  auto& ops = call.world["tpuOperations"];
  auto it = ops.find(name);
  if (it == ops.end()) return TpuNotFound(name);
  return JsonReply(Public(*it));
}

// A create runs out of chips when the zone has too few free for its slice (or a stockout fault
// says so): the operation ends with Cloud TPU's RESOURCE_EXHAUSTED and the node is gone.
void FinishNodeOperation(json& world, json& op, const std::string& target, bool stockout,
                         const EmulatorConfig& config) {
  auto& nodes = world["tpuNodes"];
  auto node = nodes.find(target);
  std::string verb = op["metadata"].value("verb", "");
  if (verb == "create" && node != nodes.end() && !stockout) {
    // Any matching reservation (schedulingConfig.reserved, no name): bound to one in the zone with
    // room, or short like a named one.
    const json scheduling = node->value("schedulingConfig", json::object());
    if (scheduling.value("reserved", false) && !scheduling.contains("reservationName") &&
        !node->contains("_reservationName")) {
      auto slice = SliceOf(*node);
      const std::string project = target.substr(9, target.find('/', 9) - 9);
      auto any =
          slice ? AnyReservation(world, project, ZoneOfName(target), slice->machine_type, slice->hosts) : std::nullopt;
      if (!any) {
        op["error"] = {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)},
                       {"message",
                        "Insufficient reserved capacity. Contact customer support to increase your reservation. [EID: "
                        "0x5ee0e1a7c0de]"}};
        nodes.erase(node);
        return;
      }
      (*node)["_reservationName"] = *any;
    }
    auto demand = TpuNodeDemand(*node);
    stockout = demand && !Fits(world, {*demand});
    auto reserved = TpuNodeReservedDemand(*node);
    if (reserved && ReservationShort(world, {*reserved}, true)) {
      op["error"] = {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)},
                     {"message",
                      "Insufficient reserved capacity. Contact customer support to increase your reservation. [EID: "
                      "0x5ee0e1a7c0de]"}};
      nodes.erase(node);
      return;
    }
  }
  if (stockout) {
    op["error"] = StockoutStatus(ZoneOfName(target));
    if (node != nodes.end()) nodes.erase(node);
    return;
  }
  if (verb == "delete") {
    if (node != nodes.end()) nodes.erase(node);
    op["response"] = {{"@type", "type.googleapis.com/google.protobuf.Empty"}};
    return;
  }
  if (node == nodes.end()) return;
  if (verb != "update") MakeReady(world, *node, config);
  op["response"] = Public(*node);
  op["response"]["@type"] = TpuType(op, "Node");
}

}  // namespace

void StepTpuOperation(json& world, json& op, int64_t at_ms, const EmulatorConfig& config) {
  EndSteps(op);
  op["done"] = true;
  op["metadata"]["endTime"] = Rfc3339(at_ms);
  std::string target = op.value("_target", "");
  if (target.find("/queuedResources/") != std::string::npos) {
    FinishQueuedOperation(world, op, target, at_ms);
  } else {
    FinishNodeOperation(world, op, target, IsStockoutFault(op), config);
  }
}

std::vector<Route> TpuRoutes() {
  // gcloud's alpha track (--reservation, --provisioning-model) speaks v2alpha1: the same resources.
  static const std::string p = "^/v2(?:alpha1)?/projects/([^/]+)/locations/([^/]+)/";
  static const std::string nodes = p + "nodes", node = nodes + "/([^/:]+)";
  static const std::string operation = p + "operations/([^/:]+)";
  return {
      {"POST", nodes + "$", "tpu.projects.locations.nodes.create", CreateNode, ErrorShape::kAip193, true},
      {"GET", nodes + "$", "tpu.projects.locations.nodes.list", ListNodes},
      {"GET", p + "acceleratorTypes$", "tpu.projects.locations.acceleratorTypes.list", ListAcceleratorTypes},
      {"GET", node + "$", "tpu.projects.locations.nodes.get", GetNode},
      {"DELETE", node + "$", "tpu.projects.locations.nodes.delete", DeleteNode, ErrorShape::kAip193, true},
      {"GET", operation + "$", "tpu.projects.locations.operations.get", GetOperation},
  };
}

}  // namespace tputrain::emulator
