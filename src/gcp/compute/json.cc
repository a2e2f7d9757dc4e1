#include "tputrain/gcp/compute/client.h"

namespace tputrain::gcp::compute {
namespace {

using nlohmann::json;

std::vector<std::string> Strings(const json& body, const char* key) {
  std::vector<std::string> out;
  auto it = body.find(key);
  if (it == body.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<ProtocolPorts> Rules(const json& body, const char* key) {
  std::vector<ProtocolPorts> out;
  auto it = body.find(key);
  if (it == body.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (!item.is_object()) continue;
    out.push_back({item.value("IPProtocol", ""), Strings(item, "ports")});
  }
  return out;
}

json RulesToJson(const std::vector<ProtocolPorts>& rules) {
  json out = json::array();
  for (const auto& rule : rules) {
    json entry = {{"IPProtocol", rule.protocol}};
    if (!rule.ports.empty()) entry["ports"] = rule.ports;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string NetworkName(const std::string& network) {
  auto slash = network.rfind('/');
  return slash == std::string::npos ? network : network.substr(slash + 1);
}

json FirewallToJson(const Firewall& firewall, const std::string& project) {
  // gcloud compute firewall-rules create sends the network as a link; a partial one is what the
  // API documents, and it needs no host.
  std::string network = firewall.network.empty() ? "default" : firewall.network;
  if (network.find('/') == std::string::npos) network = "projects/" + project + "/global/networks/" + network;
  json body = {{"name", firewall.name},
               {"network", network},
               {"direction", firewall.direction == Direction::kIngress ? "INGRESS" : "EGRESS"},
               {"priority", firewall.priority}};
  if (firewall.disabled) body["disabled"] = true;
  if (!firewall.description.empty()) body["description"] = firewall.description;
  if (!firewall.allowed.empty()) body["allowed"] = RulesToJson(firewall.allowed);
  if (!firewall.denied.empty()) body["denied"] = RulesToJson(firewall.denied);
  if (!firewall.source_ranges.empty()) body["sourceRanges"] = firewall.source_ranges;
  if (!firewall.source_tags.empty()) body["sourceTags"] = firewall.source_tags;
  if (!firewall.target_tags.empty()) body["targetTags"] = firewall.target_tags;
  if (!firewall.target_service_accounts.empty()) body["targetServiceAccounts"] = firewall.target_service_accounts;
  return body;
}

Firewall FirewallFromJson(const json& body) {
  Firewall firewall;
  firewall.name = body.value("name", "");
  firewall.network = body.value("network", "");
  firewall.direction = body.value("direction", "INGRESS") == "EGRESS" ? Direction::kEgress : Direction::kIngress;
  const json priority = body.value("priority", json(1000));
  firewall.priority = priority.is_number_integer() ? priority.get<int>() : 1000;
  firewall.disabled = body.value("disabled", false);
  firewall.description = body.value("description", "");
  firewall.allowed = Rules(body, "allowed");
  firewall.denied = Rules(body, "denied");
  firewall.source_ranges = Strings(body, "sourceRanges");
  firewall.source_tags = Strings(body, "sourceTags");
  firewall.target_tags = Strings(body, "targetTags");
  firewall.target_service_accounts = Strings(body, "targetServiceAccounts");
  firewall.self_link = body.value("selfLink", "");
  return firewall;
}

core::Result<Operation> OperationFromJson(const json& body) {
  if (!body.is_object() || !body.contains("name")) {
    return core::Fail(core::Error::Internal("compute: the answer is not an Operation"));
  }
  Operation op;
  op.name = body.value("name", "");
  op.operation_type = body.value("operationType", "");
  op.target_link = body.value("targetLink", "");
  op.self_link = body.value("selfLink", "");
  const std::string status = body.value("status", "");
  op.status = status == "DONE"      ? OperationStatus::kDone
              : status == "RUNNING" ? OperationStatus::kRunning
                                    : OperationStatus::kPending;
  auto error = body.find("error");
  if (op.done() && error != body.end() && error->is_object()) {
    std::string message, code;
    for (const auto& item : error->value("errors", json::array())) {
      if (!message.empty()) message += "; ";
      message += item.value("message", item.value("code", std::string("error")));
      if (code.empty()) code = item.value("code", "");
    }
    const int http = body.value("httpErrorStatusCode", 400);
    // The code names the kind more exactly than the HTTP status (409 is also "aborted").
    core::ErrorKind kind = code.ends_with("ALREADY_EXISTS") ? core::ErrorKind::kAlreadyExists
                           : code.ends_with("NOT_FOUND")    ? core::ErrorKind::kNotFound
                                                            : core::KindFromHttpStatus(http);
    core::Error failure = core::Error::Make(kind, message);
    failure.http_status = http;
    failure.where = "compute operation " + op.name;
    op.error = std::move(failure);
  }
  return op;
}

}  // namespace tputrain::gcp::compute
