#include "tputrain/gcp/compute/client.h"

#include "api_call.h"

namespace tputrain::gcp::compute {
namespace {

std::string Global(const std::string& project) { return "projects/" + http::PathSegment(project) + "/global/"; }

}  // namespace

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildInsertFirewall(const std::string& project, const Firewall& firewall) const {
  const auto body = FirewallToJson(firewall, project);
  return JsonRequest("POST", JoinUrl(base_url_, Global(project) + "firewalls"), &body);
}

http::Request Client::BuildDeleteFirewall(const std::string& project, const std::string& name) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, Global(project) + "firewalls/" + http::PathSegment(name)));
}

core::Result<Operation> Client::InsertFirewall(const std::string& project, const Firewall& firewall) {
  auto body = CallJson(transport_, BuildInsertFirewall(project, firewall), "compute.firewalls.insert");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Firewall> Client::GetFirewall(const std::string& project, const std::string& name) {
  auto body = CallJson(transport_,
                       JsonRequest("GET", JoinUrl(base_url_, Global(project) + "firewalls/" + http::PathSegment(name))),
                       "compute.firewalls.get");
  if (!body) return core::Fail(body.error());
  return FirewallFromJson(*body);
}

core::Result<std::vector<Firewall>> Client::ListFirewalls(const std::string& project) {
  std::vector<Firewall> rules;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, Global(project) + "firewalls");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "compute.firewalls.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("items", nlohmann::json::array())) rules.push_back(FirewallFromJson(item));
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return rules;
}

core::Result<Operation> Client::DeleteFirewall(const std::string& project, const std::string& name) {
  auto body = CallJson(transport_, BuildDeleteFirewall(project, name), "compute.firewalls.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Operation> Client::GetGlobalOperation(const std::string& project, const std::string& name) {
  auto body = CallJson(
      transport_, JsonRequest("GET", JoinUrl(base_url_, Global(project) + "operations/" + http::PathSegment(name))),
      "compute.globalOperations.get");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

operations::Waiting<Operation> GlobalOperationWaiting(Client& client, const std::string& project,
                                                      const std::string& name) {
  return {[&client, project, name] { return client.GetGlobalOperation(project, name); },
          [](const Operation& op) { return op.done(); }, [](const Operation& op) { return op.error; }};
}

}  // namespace tputrain::gcp::compute
