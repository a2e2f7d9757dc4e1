#include "tputrain/gcp/tpu/types.h"

namespace tputrain::gcp::tpu {
namespace {

using nlohmann::json;

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

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

Operation OperationFromJson(const json& body) {
  Operation op;
  if (!body.is_object()) return op;
  op.name = Str(body, "name");
  op.done = body.value("done", false);
  if (auto error = body.find("error"); error != body.end() && error->is_object()) {
    op.error = RpcStatus{error->value("code", 0), Str(*error, "message")};
  }
  op.response = body.value("response", json());
  op.metadata = body.value("metadata", json());
  op.raw = body;
  return op;
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
  node.name = Str(body, "name");
  node.accelerator_type = Str(body, "acceleratorType");
  node.runtime_version = Str(body, "runtimeVersion");
  node.state = Str(body, "state");
  node.health = Str(body, "health");
  node.spot = body.value("schedulingConfig", json::object()).value("spot", false);
  const json labels = body.value("labels", json::object());
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) node.labels[key] = value.get<std::string>();
  }
  const json endpoints = body.value("networkEndpoints", json::array());
  for (const auto& endpoint : endpoints) {
    if (endpoint.is_object()) node.ip_addresses.push_back(Str(endpoint, "ipAddress"));
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
