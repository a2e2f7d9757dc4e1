#include "tputrain/gcp/serviceusage/client.h"

#include <nlohmann/json.hpp>

#include "api_call.h"

#include "tputrain/core/resource_name.h"

namespace tputrain::gcp::serviceusage {
namespace {

using nlohmann::json;

Service ServiceFromJson(const json& body) {
  Service service;
  const json config = body.value("config", json::object());
  service.name = config.value("name", "");
  if (service.name.empty()) {
    const std::string full = body.value("name", "");
    service.name = core::LastSegment(full);
  }
  service.title = config.value("title", "");
  service.enabled = body.value("state", "") == "ENABLED";
  return service;
}

}  // namespace

std::string ServiceName(const std::string& name) {
  return name.find('.') == std::string::npos ? name + ".googleapis.com" : name;
}

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildEnable(const std::string& project, const std::vector<std::string>& services) const {
  const std::string parent = "v1/projects/" + http::PathSegment(project) + "/services";
  http::Request request;
  if (services.size() == 1) {
    const json empty = json::object();
    request =
        JsonRequest("POST", JoinUrl(base_url_, parent + "/" + http::PathSegment(services.front()) + ":enable"), &empty);
  } else {
    const json body = {{"serviceIds", services}};
    request = JsonRequest("POST", JoinUrl(base_url_, parent + ":batchEnable"), &body);
  }
  request.idempotent = true;  // enabling an enabled service changes nothing
  return request;
}

core::Result<Operation> Client::Enable(const std::string& project, const std::vector<std::string>& services) {
  auto body = CallJson(transport_, BuildEnable(project, services),
                       services.size() == 1 ? "serviceusage.services.enable" : "serviceusage.services.batchEnable");
  if (!body) return core::Fail(body.error());
  return operations::OperationFromJson(*body);
}

core::Result<Operation> Client::GetOperation(const std::string& name) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v1/" + name)), "serviceusage.operations.get");
  if (!body) return core::Fail(body.error());
  return operations::OperationFromJson(*body);
}

core::Result<Service> Client::GetService(const std::string& project, const std::string& service) {
  auto body = CallJson(transport_,
                       JsonRequest("GET", JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project) +
                                                                 "/services/" + http::PathSegment(service))),
                       "serviceusage.services.get");
  if (!body) return core::Fail(body.error());
  return ServiceFromJson(*body);
}

core::Result<std::vector<Service>> Client::ListServices(const std::string& project, bool enabled_only) {
  std::vector<Service> services;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project) + "/services?pageSize=200");
    if (enabled_only) url += "&filter=" + http::UrlEncode("state:ENABLED");
    if (!page_token.empty()) url += "&pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "serviceusage.services.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("services", json::array())) services.push_back(ServiceFromJson(item));
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return services;
}

operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name) {
  return operations::LongRunning([&client, name] { return client.GetOperation(name); }, "serviceusage.services.enable");
}

}  // namespace tputrain::gcp::serviceusage
