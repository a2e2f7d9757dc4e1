#include "tputrain/gcp/iam/client.h"

#include "api_call.h"

namespace tputrain::gcp::iam {

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

std::string Client::AccountUrl(const std::string& email) const {
  // "-": the API infers the project from the account, for an e-mail that names none.
  std::string project = ProjectOfEmail(email);
  return JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project.empty() ? "-" : project) + "/serviceAccounts/" +
                                http::PathSegment(email));
}

http::Request Client::BuildCreateServiceAccount(const std::string& project, const std::string& account_id,
                                                const std::string& display_name) const {
  nlohmann::json account = nlohmann::json::object();
  if (!display_name.empty()) account["displayName"] = display_name;
  nlohmann::json body = {{"accountId", account_id}, {"serviceAccount", account}};
  return JsonRequest("POST", JoinUrl(base_url_, "v1/projects/" + http::PathSegment(project) + "/serviceAccounts"),
                     &body);
}

http::Request Client::BuildDeleteServiceAccount(const std::string& email) const {
  return JsonRequest("DELETE", AccountUrl(email));
}

http::Request Client::BuildSetIamPolicy(const std::string& email, const Policy& policy) const {
  nlohmann::json body = {{"policy", PolicyToJson(policy)}};
  auto request = JsonRequest("POST", AccountUrl(email) + ":setIamPolicy", &body);
  request.idempotent = true;  // guarded by the etag: a repeat fails with ABORTED, never doubles
  return request;
}

core::Result<ServiceAccount> Client::CreateServiceAccount(const std::string& project, const std::string& account_id,
                                                          const std::string& display_name) {
  auto body = CallJson(transport_, BuildCreateServiceAccount(project, account_id, display_name),
                       "iam.projects.serviceAccounts.create");
  if (!body) return core::Fail(body.error());
  return ServiceAccountFromJson(*body);
}

core::Result<ServiceAccount> Client::GetServiceAccount(const std::string& email) {
  auto body = CallJson(transport_, JsonRequest("GET", AccountUrl(email)), "iam.projects.serviceAccounts.get");
  if (!body) return core::Fail(body.error());
  return ServiceAccountFromJson(*body);
}

core::Status Client::DeleteServiceAccount(const std::string& email) {
  auto body = CallJson(transport_, BuildDeleteServiceAccount(email), "iam.projects.serviceAccounts.delete");
  if (!body) return core::Fail(body.error());
  return {};
}

core::Result<Policy> Client::GetIamPolicy(const std::string& email) {
  // The SA's getIamPolicy takes its version in the query and an empty body.
  auto request = JsonRequest("POST", AccountUrl(email) + ":getIamPolicy?options.requestedPolicyVersion=3");
  request.idempotent = true;
  auto body = CallJson(transport_, request, "iam.projects.serviceAccounts.getIamPolicy");
  if (!body) return core::Fail(body.error());
  return PolicyFromJson(*body);
}

core::Result<Policy> Client::SetIamPolicy(const std::string& email, const Policy& policy) {
  auto body = CallJson(transport_, BuildSetIamPolicy(email, policy), "iam.projects.serviceAccounts.setIamPolicy");
  if (!body) return core::Fail(body.error());
  return PolicyFromJson(*body);
}

}  // namespace tputrain::gcp::iam
