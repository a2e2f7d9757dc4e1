#include "tputrain/gcp/resourcemanager/client.h"

#include "api_call.h"

namespace tputrain::gcp::resourcemanager {

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildSetIamPolicy(const std::string& project, const iam::Policy& policy) const {
  nlohmann::json body = {{"policy", iam::PolicyToJson(policy)}};
  auto request =
      JsonRequest("POST", JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project) + ":setIamPolicy"), &body);
  request.idempotent = true;  // guarded by the etag
  return request;
}

core::Result<Project> Client::GetProject(const std::string& project) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project))),
                       "cloudresourcemanager.projects.get");
  if (!body) return core::Fail(body.error());
  return ProjectFromJson(*body);
}

core::Result<iam::Policy> Client::GetIamPolicy(const std::string& project) {
  nlohmann::json options = {{"options", {{"requestedPolicyVersion", 3}}}};
  auto request =
      JsonRequest("POST", JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project) + ":getIamPolicy"), &options);
  request.idempotent = true;
  auto body = CallJson(transport_, request, "cloudresourcemanager.projects.getIamPolicy");
  if (!body) return core::Fail(body.error());
  return iam::PolicyFromJson(*body);
}

core::Result<iam::Policy> Client::SetIamPolicy(const std::string& project, const iam::Policy& policy) {
  auto body = CallJson(transport_, BuildSetIamPolicy(project, policy), "cloudresourcemanager.projects.setIamPolicy");
  if (!body) return core::Fail(body.error());
  return iam::PolicyFromJson(*body);
}

}  // namespace tputrain::gcp::resourcemanager
