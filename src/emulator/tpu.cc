#include <regex>

#include "operations.h"
#include "tpu_node_common.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/field_rules.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/tpu_host_network.h"

// Cloud TPU tpu/v2: TPU VM nodes, queued resources and their long-running operations, which
// start done:false and finish over the configured latency.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

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

// Checks the accelerator and returns the slice it names.
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

// The node ids one nodeSpec of a queued resource asks for: its nodeId, or with multisliceParams
// nodeCount ids "<nodeIdPrefix>-0".."<nodeIdPrefix>-<nodeCount-1>" (one slice each).
core::Result<std::vector<std::string>> NodeIdsOf(const json& spec) {
  const bool multislice = spec.contains("multisliceParams");
  const std::string node_id = spec.value("nodeId", "");
  if (multislice == !node_id.empty()) {
    return core::Fail(
        core::Error::Usage("exactly one of node_spec.node_id and node_spec.multislice_params is required"));
  }
  if (!multislice) return std::vector<std::string>{node_id};
  const json& params = spec["multisliceParams"];
  const std::string prefix = params.value("nodeIdPrefix", "");
  const json count = params.value("nodeCount", json());
  if (prefix.empty()) return core::Fail(core::Error::Usage("multislice_params.node_id_prefix is required"));
  if (!count.is_number_integer() || count.get<int64_t>() < 2 || count.get<int64_t>() > 256) {
    return core::Fail(core::Error::Usage("multislice_params.node_count must be between 2 and 256"));
  }
  std::vector<std::string> ids;
  for (int64_t i = 0; i < count.get<int64_t>(); ++i) ids.push_back(prefix + "-" + std::to_string(i));
  return ids;
}

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

std::optional<ApiResponse> CheckZone(const Call& call) {
  if (core::IsZone(call.args[1])) return std::nullopt;
  return Aip193Error(ErrorKind::kInvalidArgument, "Location \"" + call.args[1] +
                                                      "\" is not a zone; Cloud TPU nodes "
                                                      "live in zones such as us-east5-b.");
}

ApiResponse CreateNode(Call& call) {
  ApiResponse error;
  auto body = call.Body("tpu", "Node", ErrorShape::kAip193, error);
  if (!body) return error;
  auto node_id = call.request.Param("nodeId");
  if (auto bad = CheckId("node", node_id)) return *bad;
  if (auto bad = CheckZone(call)) return *bad;
  auto slice = SliceOf(*body);
  if (!slice) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid accelerator in Node: " + slice.error().message + ".",
                       json::array({BadRequestDetail("node.accelerator_type", slice.error().message)}));
  }
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
  nodes[name] = NewNode(call, *body, name, *slice);
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

ApiResponse CreateQueuedResource(Call& call) {
  ApiResponse error;
  auto body = call.Body("tpu", "QueuedResource", ErrorShape::kAip193, error);
  if (!body) return error;
  auto id = call.request.Param("queuedResourceId");
  if (auto bad = CheckId("queued resource", id)) return *bad;
  if (auto bad = CheckZone(call)) return *bad;
  std::string name = TpuParent(call) + "/queuedResources/" + *id;
  if (call.world["queuedResources"].contains(name)) {
    return Aip193Error(ErrorKind::kAlreadyExists, "Resource '" + name + "' already exists");
  }
  const json specs = body->value("tpu", json::object()).value("nodeSpec", json::array());
  if (specs.empty()) return Aip193Error(ErrorKind::kInvalidArgument, "QueuedResource.tpu.node_spec is required.");
  for (const auto& spec : specs) {
    auto slice = SliceOf(spec.value("node", json::object()));
    if (!slice)
      return Aip193Error(ErrorKind::kInvalidArgument,
                         "Invalid accelerator in node_spec: " + slice.error().message + ".");
    auto ids = NodeIdsOf(spec);
    if (!ids) return Aip193Error(ErrorKind::kInvalidArgument, "Invalid node_spec: " + ids.error().message + ".");
    for (const auto& node_id : *ids) {
      if (auto bad = CheckId("node", node_id)) return *bad;
      std::string node_name = spec.value("parent", TpuParent(call)) + "/nodes/" + node_id;
      if (call.world["tpuNodes"].contains(node_name)) {
        return Aip193Error(ErrorKind::kAlreadyExists, "Resource '" + node_name + "' already exists");
      }
    }
  }
  json resource = *body;
  resource["name"] = name;
  resource["createTime"] = Rfc3339(call.now_ms);
  resource["state"] = {{"state", "ACCEPTED"}, {"stateInitiator", "USER"}};
  // Its nodes are READY one latency after the create operation ends.
  ScheduleStep(resource, call.now_ms + 2 * call.config.op_latency.count());
  call.world["queuedResources"][name] = resource;
  return JsonReply(Public(StartTpuOperation(call, "create", name, json())));
}

ApiResponse ListQueuedResources(Call& call) {
  json items = json::array();
  // "-" lists every zone, as for nodes.
  std::string prefix =
      call.args[1] == "-" ? "projects/" + call.args[0] + "/locations/" : TpuParent(call) + "/queuedResources/";
  for (const auto& [name, resource] : call.world["queuedResources"].items()) {
    if (name.rfind(prefix, 0) == 0) items.push_back(Public(resource));
  }
  json reply = json::object();
  if (!items.empty()) reply["queuedResources"] = items;
  return JsonReply(reply);
}

ApiResponse GetQueuedResource(Call& call) {
  std::string name = TpuParent(call) + "/queuedResources/" + call.args[2];
  auto& all = call.world["queuedResources"];
  auto it = all.find(name);
  if (it == all.end()) return TpuNotFound(name);
  return JsonReply(Public(*it));
}

ApiResponse DeleteQueuedResource(Call& call) {
  std::string name = TpuParent(call) + "/queuedResources/" + call.args[2];
  auto& all = call.world["queuedResources"];
  auto it = all.find(name);
  if (it == all.end()) return TpuNotFound(name);
  std::string state = (*it)["state"].value("state", "");
  bool force = call.request.BoolParam("force");
  if (state == "ACTIVE" && !force) {
    return Aip193Error(ErrorKind::kFailedPrecondition,
                       "Queued resource " + name + " has nodes; delete them first or pass force=true.");
  }
  (*it)["state"]["state"] = "DELETING";
  // force: its nodes go first, so their hosts stop now.
  for (const auto& spec : (*it)["tpu"].value("nodeSpec", json::array())) {
    auto ids = NodeIdsOf(spec);
    for (const auto& id : ids ? *ids : std::vector<std::string>{}) {
      auto node = call.world["tpuNodes"].find(spec.value("parent", "") + "/nodes/" + id);
      if (node != call.world["tpuNodes"].end()) (*node)["state"] = "DELETING";
    }
  }
  return JsonReply(Public(StartTpuOperation(call, "delete", name, json())));
}

ApiResponse GetOperation(Call& call) {
  std::string name = TpuParent(call) + "/operations/" + call.args[2];
  auto& ops = call.world["tpuOperations"];
  auto it = ops.find(name);
  if (it == ops.end()) return TpuNotFound(name);
  return JsonReply(Public(*it));
}

void FinishNodeOperation(json& world, json& op, const std::string& target, bool stockout,
                         const EmulatorConfig& config) {
  auto& nodes = world["tpuNodes"];
  auto node = nodes.find(target);
  std::string verb = op["metadata"].value("verb", "");
  if (stockout) {
    std::string zone = target.substr(0, target.find("/nodes/"));
    zone = zone.substr(zone.rfind('/') + 1);
    op["error"] = {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)},
                   {"message", "There is no more capacity in the zone \"" + zone +
                                   "\"; you can try in another zone where Cloud TPU Nodes are offered (see "
                                   "https://cloud.google.com/tpu/docs/regions) [EID: 0x5ee0e1a7c0de]"}};
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
  op["response"]["@type"] = "type.googleapis.com/google.cloud.tpu.v2.Node";
}

void FinishQueuedOperation(json& world, json& op, const std::string& target) {
  auto& all = world["queuedResources"];
  auto resource = all.find(target);
  if (op["metadata"].value("verb", "") == "delete") {
    if (resource != all.end()) {
      for (const auto& spec : (*resource)["tpu"].value("nodeSpec", json::array())) {
        auto ids = NodeIdsOf(spec);
        for (const auto& id : ids ? *ids : std::vector<std::string>{}) {
          world["tpuNodes"].erase(spec.value("parent", "") + "/nodes/" + id);
        }
      }
      all.erase(resource);
    }
    op["response"] = {{"@type", "type.googleapis.com/google.protobuf.Empty"}};
    return;
  }
  if (resource == all.end()) return;
  (*resource)["state"]["state"] = "WAITING_FOR_RESOURCES";
  op["response"] = Public(*resource);
  op["response"]["@type"] = "type.googleapis.com/google.cloud.tpu.v2.QueuedResource";
}

}  // namespace

void StepTpuOperation(json& world, json& op, int64_t at_ms, const EmulatorConfig& config) {
  EndSteps(op);
  op["done"] = true;
  op["metadata"]["endTime"] = Rfc3339(at_ms);
  std::string target = op.value("_target", "");
  if (target.find("/queuedResources/") != std::string::npos) {
    FinishQueuedOperation(world, op, target);
  } else {
    FinishNodeOperation(world, op, target, IsStockoutFault(op), config);
  }
}

// A queued resource becomes ACTIVE, with READY nodes, once it waits for resources.
void StepQueuedResource(json& world, json& resource, int64_t at_ms, const EmulatorConfig& config) {
  std::string state = resource["state"].value("state", "");
  if (state != "WAITING_FOR_RESOURCES") {
    // Still ACCEPTED: its create operation has not ended (a stuck one may never end).
    if (state == "ACCEPTED") {
      WaitStep(resource);
    } else {
      EndSteps(resource);
    }
    return;
  }
  EndSteps(resource);
  resource["state"]["state"] = "ACTIVE";
  const std::string name = resource.value("name", "");
  for (const auto& spec : resource["tpu"].value("nodeSpec", json::array())) {
    auto ids = NodeIdsOf(spec);
    for (const auto& id : ids ? *ids : std::vector<std::string>{}) {
      json node = spec.value("node", json::object());
      std::string node_name = spec.value("parent", "") + "/nodes/" + id;
      auto slice = SliceOf(node);
      node["name"] = node_name;
      node["queuedResource"] = name;
      node["createTime"] = Rfc3339(at_ms);
      node["apiVersion"] = "V2";
      node["_hosts"] = slice ? slice->hosts : 1;
      MakeReady(world, node, config);
      world["tpuNodes"][node_name] = node;
    }
  }
}

std::vector<Route> TpuRoutes() {
  static const std::string p = "^/v2/projects/([^/]+)/locations/([^/]+)/";
  static const std::string nodes = p + "nodes", node = nodes + "/([^/:]+)";
  static const std::string queued = p + "queuedResources", one_queued = queued + "/([^/:]+)";
  static const std::string operation = p + "operations/([^/:]+)";
  return {
      {"POST", nodes + "$", "tpu.projects.locations.nodes.create", CreateNode, ErrorShape::kAip193, true},
      {"GET", nodes + "$", "tpu.projects.locations.nodes.list", ListNodes},
      {"GET", node + "$", "tpu.projects.locations.nodes.get", GetNode},
      {"DELETE", node + "$", "tpu.projects.locations.nodes.delete", DeleteNode, ErrorShape::kAip193, true},
      {"POST", queued + "$", "tpu.projects.locations.queuedResources.create", CreateQueuedResource, ErrorShape::kAip193,
       true},
      {"GET", queued + "$", "tpu.projects.locations.queuedResources.list", ListQueuedResources},
      {"GET", one_queued + "$", "tpu.projects.locations.queuedResources.get", GetQueuedResource},
      {"DELETE", one_queued + "$", "tpu.projects.locations.queuedResources.delete", DeleteQueuedResource,
       ErrorShape::kAip193, true},
      {"GET", operation + "$", "tpu.projects.locations.operations.get", GetOperation},
  };
}

}  // namespace tputrain::emulator
