#include <set>
#include <sstream>

#include "field_rules.h"
#include "tpu_guest_attributes.h"
#include "tpu_node_common.h"
#include "tputrain/emulator/handlers.h"

// Cloud TPU tpu/v2 calls on an existing node: nodes.patch (gcloud `tpu-vm update`, and `tpu-vm
// ssh` adding keys with updateMask=metadata) and nodes.getGuestAttributes (what the hosts wrote).
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

// The discovery document's updateMask: "Supported fields: [description, tags, labels, metadata,
// network_config.enable_external_ips]". The mask names proto fields; JSON names are accepted too.
const std::map<std::string, std::string>& PatchableFields() {
  static const std::map<std::string, std::string> kFields = {
      {"description", "description"},
      {"tags", "tags"},
      {"labels", "labels"},
      {"metadata", "metadata"},
      {"network_config.enable_external_ips", "networkConfig.enableExternalIps"},
      {"networkConfig.enableExternalIps", "networkConfig.enableExternalIps"}};
  return kFields;
}

std::vector<std::string> SplitMask(const std::string& mask) {
  std::vector<std::string> paths;
  std::stringstream stream(mask);
  for (std::string path; std::getline(stream, path, ',');) {
    if (!path.empty()) paths.push_back(path);
  }
  return paths;
}

// Copies one masked field from the request to the node; a field absent from the request is
// cleared, as a field mask means.
void ApplyField(const std::string& json_path, const json& request, json& node) {
  if (json_path == "networkConfig.enableExternalIps") {
    bool enable = request.value("networkConfig", json::object()).value("enableExternalIps", false);
    node["networkConfig"]["enableExternalIps"] = enable;
    return;
  }
  if (request.contains(json_path)) {
    node[json_path] = request[json_path];
  } else {
    node.erase(json_path);
  }
}

ApiResponse PatchNode(Call& call) {
  ApiResponse error;
  auto body = call.Body("tpu", "Node", ErrorShape::kAip193, error);
  if (!body) return error;
  std::string name = TpuParent(call) + "/nodes/" + call.args[2];
  auto& nodes = call.world["tpuNodes"];
  auto node = nodes.find(name);
  if (node == nodes.end()) return TpuNotFound(name);
  auto mask = call.request.Param("updateMask");
  std::vector<std::string> paths = SplitMask(mask.value_or(""));
  if (paths.empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid argument: update_mask is required.",
                       json::array({BadRequestDetail("update_mask", "update_mask is required")}));
  }
  std::vector<std::string> json_paths;
  for (const auto& path : paths) {
    auto field = PatchableFields().find(path);
    if (field == PatchableFields().end()) {
      return Aip193Error(
          ErrorKind::kInvalidArgument,
          "Invalid update_mask path \"" + path +
              "\": supported fields are description, tags, labels, metadata, network_config.enable_external_ips.",
          json::array({BadRequestDetail("update_mask", "unsupported path " + path)}));
    }
    json_paths.push_back(field->second);
  }
  if (auto bad = LabelProblem(body->value("labels", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid labels in Node: " + *bad + ".",
                       json::array({BadRequestDetail("node.labels", *bad)}));
  }
  std::string state = node->value("state", "");
  if (state == "DELETING") {
    return Aip193Error(ErrorKind::kFailedPrecondition, "The node " + name + " is being deleted and cannot be updated.");
  }
  // The change is visible at once (the metadata server serves it); the operation reports it.
  for (const auto& json_path : json_paths) ApplyField(json_path, *body, *node);
  call.mutated = true;
  return JsonReply(Public(StartTpuOperation(call, "update", name, json())));
}

ApiResponse GetGuestAttributes(Call& call) {
  ApiResponse error;
  auto body = call.Body("tpu", "GetGuestAttributesRequest", ErrorShape::kAip193, error);
  if (!body) return error;
  std::string name = TpuParent(call) + "/nodes/" + call.args[2];
  auto& nodes = call.world["tpuNodes"];
  auto node = nodes.find(name);
  if (node == nodes.end()) return TpuNotFound(name);
  int workers = static_cast<int>(node->value("networkEndpoints", json::array()).size());
  auto selected = SelectWorkers(body->value("workerIds", json::array()), workers);
  if (!selected) {
    return Aip193Error(ErrorKind::kInvalidArgument, selected.error().message,
                       json::array({BadRequestDetail("worker_ids", selected.error().message)}));
  }
  std::string query_path = body->value("queryPath", "");
  json attributes = json::array();
  for (int worker : *selected) {
    json entry = {{"queryValue", {{"items", GuestAttributeItems(*node, worker, query_path)}}}};
    if (!query_path.empty()) entry["queryPath"] = query_path;
    attributes.push_back(std::move(entry));
  }
  json reply = json::object();
  if (!attributes.empty()) reply["guestAttributes"] = attributes;
  return JsonReply(reply);
}

}  // namespace

std::vector<Route> TpuNodeUpdateRoutes() {
  static const std::string node = "^/v2/projects/([^/]+)/locations/([^/]+)/nodes/([^/:]+)";
  return {
      {"PATCH", node + "$", "tpu.projects.locations.nodes.patch", PatchNode, ErrorShape::kAip193, true},
      {"POST", node + ":getGuestAttributes$", "tpu.projects.locations.nodes.getGuestAttributes", GetGuestAttributes},
  };
}

}  // namespace tputrain::emulator
