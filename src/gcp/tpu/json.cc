#include "tputrain/gcp/tpu/types.h"

#include "tputrain/core/json_fields.h"

namespace tputrain::gcp::tpu {
namespace {

using nlohmann::json;

}  // namespace

json NodeToJson(const NodeSpec& spec) {
  // gcloud spells out the network and the scheduling defaults; so do we, so the bodies compare.
  json node = {{"acceleratorType", spec.accelerator_type},
               {"metadata", spec.metadata},
               {"networkConfig", {{"enableExternalIps", true}, {"network", spec.network}}},
               {"runtimeVersion", spec.runtime_version},
               {"schedulingConfig", {{"preemptible", false}, {"reserved", spec.reserved}, {"spot", spec.spot}}},
               {"shieldedInstanceConfig", {{"enableSecureBoot", false}}}};
  if (spec.metadata.empty()) node["metadata"] = json::object();
  if (!spec.labels.empty()) node["labels"] = spec.labels;
  return node;
}

namespace {

// A queued resource's node as `gcloud compute tpus queued-resources create` spells it: Spot and
// the reservation are the queued resource's, so no schedulingConfig; an empty service account.
json QueuedNodeToJson(const NodeSpec& spec) {
  json node = {{"acceleratorType", spec.accelerator_type},
               {"metadata", spec.metadata.empty() ? json::object() : json(spec.metadata)},
               {"networkConfig", {{"enableExternalIps", true}, {"network", spec.network}}},
               {"runtimeVersion", spec.runtime_version},
               {"serviceAccount", json::object()}};
  if (!spec.labels.empty()) node["labels"] = spec.labels;
  return node;
}

}  // namespace

json MultisliceToJson(const QueuedResourceRef& ref, const NodeSpec& spec, int slices, const Queueing& queueing) {
  // The parent is unencoded here: a resource name inside a body, not a URL path.
  json node_spec = {{"parent", "projects/" + ref.project + "/locations/" + ref.zone}, {"node", QueuedNodeToJson(spec)}};
  if (slices == 0) {
    node_spec["nodeId"] = ref.id;
  } else {
    node_spec["multisliceParams"] = {{"nodeCount", slices}, {"nodeIdPrefix", ref.id}};
  }
  json body = {{"tpu", {{"nodeSpec", json::array({node_spec})}}}};
  if (spec.spot) body["spot"] = json::object();
  json policy = json::object();
  if (!queueing.valid_until_duration.empty()) policy["validUntilDuration"] = queueing.valid_until_duration;
  if (!queueing.valid_after_duration.empty()) policy["validAfterDuration"] = queueing.valid_after_duration;
  if (!policy.empty()) body["queueingPolicy"] = policy;
  if (!queueing.reservation_name.empty()) body["reservationName"] = queueing.reservation_name;
  return body;
}

namespace {
constexpr std::pair<QueuedResourceState, std::string_view> kQueuedStates[] = {
    {QueuedResourceState::kCreating, "CREATING"},
    {QueuedResourceState::kAccepted, "ACCEPTED"},
    {QueuedResourceState::kProvisioning, "PROVISIONING"},
    {QueuedResourceState::kWaitingForResources, "WAITING_FOR_RESOURCES"},
    {QueuedResourceState::kActive, "ACTIVE"},
    {QueuedResourceState::kFailed, "FAILED"},
    {QueuedResourceState::kSuspending, "SUSPENDING"},
    {QueuedResourceState::kSuspended, "SUSPENDED"},
    {QueuedResourceState::kDeleting, "DELETING"},
};
}  // namespace

QueuedResourceState QueuedResourceStateFromName(std::string_view name) {
  for (const auto& [state, spelled] : kQueuedStates) {
    if (spelled == name) return state;
  }
  return QueuedResourceState::kUnspecified;
}

std::string_view QueuedResourceStateName(QueuedResourceState state) {
  for (const auto& [known, spelled] : kQueuedStates) {
    if (known == state) return spelled;
  }
  return "STATE_UNSPECIFIED";
}

QueuedResource QueuedResourceFromJson(const json& body) {
  QueuedResource resource;
  if (!body.is_object()) return resource;
  resource.name = core::StringAt(body, "name");
  const json state = body.value("state", json::object());
  if (state.is_object()) {
    resource.state = QueuedResourceStateFromName(core::StringAt(state, "state"));
    const json failed = state.value("failedData", json::object()).value("error", json::object());
    if (failed.is_object()) resource.failure = core::StringAt(failed, "message");
  }
  const json specs = body.value("tpu", json::object()).value("nodeSpec", json::array());
  for (const auto& spec : specs) {
    if (!spec.is_object()) continue;
    const json labels = spec.value("node", json::object()).value("labels", json::object());
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string()) resource.labels[key] = value.get<std::string>();
    }
    const json params = spec.value("multisliceParams", json::object());
    if (params.is_object() && params.contains("nodeIdPrefix")) {
      const int count = params.value("nodeCount", 0);
      for (int i = 0; i < count; ++i)
        resource.node_ids.push_back(core::StringAt(params, "nodeIdPrefix") + "-" + std::to_string(i));
    } else if (!core::StringAt(spec, "nodeId").empty()) {
      resource.node_ids.push_back(core::StringAt(spec, "nodeId"));
    }
  }
  resource.raw = body;
  return resource;
}

std::vector<GuestAttribute> GuestAttributesFromJson(const json& body) {
  std::vector<GuestAttribute> out;
  const auto answers = body.value("guestAttributes", json::array());
  for (std::size_t index = 0; index < answers.size(); ++index) {
    const auto& answer = answers[index];
    if (!answer.is_object()) continue;
    // tpu v2's GuestAttributes has no worker field: the answers come one per worker, in worker
    // order (gcloud reads them so). A workerId, where a server gives one, is taken as said.
    const std::string worker = answer.value("workerId", std::to_string(index));
    const auto items = answer.value("queryValue", json::object()).value("items", json::array());
    for (const auto& item : items) {
      if (!item.is_object()) continue;
      out.push_back({worker, item.value("namespace", ""), item.value("key", ""), item.value("value", "")});
    }
  }
  return out;
}

Node NodeFromJson(const json& body) {
  Node node;
  if (!body.is_object()) return node;
  node.name = core::StringAt(body, "name");
  node.accelerator_type = core::StringAt(body, "acceleratorType");
  node.runtime_version = core::StringAt(body, "runtimeVersion");
  node.state = core::StringAt(body, "state");
  node.health = core::StringAt(body, "health");
  node.spot = body.value("schedulingConfig", json::object()).value("spot", false);
  const json labels = body.value("labels", json::object());
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) node.labels[key] = value.get<std::string>();
  }
  const json endpoints = body.value("networkEndpoints", json::array());
  for (const auto& endpoint : endpoints) {
    if (endpoint.is_object()) node.ip_addresses.push_back(core::StringAt(endpoint, "ipAddress"));
  }
  node.raw = body;
  return node;
}

std::vector<std::string> DiffNode(const NodeSpec& want, const Node& have) {
  std::vector<std::string> diffs;
  auto compare = [&](const char* field, const std::string& a, const std::string& b) {
    if (a != b) diffs.push_back(std::string(field) + ": want " + a + ", have " + (b.empty() ? "(unset)" : b));
  };
  compare("acceleratorType", want.accelerator_type, have.accelerator_type);
  compare("runtimeVersion", want.runtime_version, have.runtime_version);
  if (want.spot != have.spot)
    compare("schedulingConfig.spot", want.spot ? "true" : "false", have.spot ? "true" : "false");
  return diffs;
}

}  // namespace tputrain::gcp::tpu
