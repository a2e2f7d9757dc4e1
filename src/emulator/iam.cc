#include <regex>

#include "field_rules.h"
#include "tputrain/core/base64.h"
#include "tputrain/emulator/handlers.h"

// IAM iam/v1 service accounts and their policies, Resource Manager v1 projects and their
// policies (etag-checked: a stale etag is 409 ABORTED).
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

// IAM etags are opaque bytes; "ACAB" is the one Google shows for a policy that was never set.
std::string IamEtag(int64_t counter) {
  if (counter == 0) return "ACAB";
  std::string bytes = "\x07\x05";
  for (int shift = 40; shift >= 0; shift -= 8) bytes += static_cast<char>((counter >> shift) & 0xff);
  return core::EncodeBase64(bytes);
}

json ShowPolicy(const json& stored) {
  json shown = {{"version", stored.value("version", 1)}, {"etag", IamEtag(stored.value("_counter", int64_t{0}))}};
  if (!stored.value("bindings", json::array()).empty()) shown["bindings"] = stored["bindings"];
  if (!stored.value("auditConfigs", json::array()).empty()) shown["auditConfigs"] = stored["auditConfigs"];
  return shown;
}

json& PolicyFor(Call& call, const std::string& key, const json& initial) {
  auto& policies = call.world["policies"];
  if (!policies.contains(key)) policies[key] = initial;
  return policies[key];
}

ApiResponse SetPolicy(Call& call, const std::string& key, const json& initial) {
  ApiResponse error;
  auto body = call.Body(call.method_id.rfind("iam.", 0) == 0 ? "iam" : "cloudresourcemanager", "SetIamPolicyRequest",
                        ErrorShape::kAip193, error);
  if (!body) return error;
  json& stored = PolicyFor(call, key, initial);
  json policy = body->value("policy", json::object());
  int64_t counter = stored.value("_counter", int64_t{0});
  if (policy.contains("etag") && policy["etag"] != IamEtag(counter)) {
    return Aip193Error(ErrorKind::kAborted,
                       "There were concurrent policy changes. Please retry the whole read-modify-write with "
                       "exponential backoff.");
  }
  if (auto bad = BindingsProblem(policy.value("bindings", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument, *bad + ".");
  }
  for (const auto& binding : policy.value("bindings", json::array())) {
    if (binding.contains("condition") && policy.value("version", 1) < 3) {
      return Aip193Error(ErrorKind::kInvalidArgument, "Policy version must be 3 when a binding has a condition.");
    }
  }
  stored = {{"version", policy.value("version", 1)},
            {"bindings", policy.value("bindings", json::array())},
            {"auditConfigs", policy.value("auditConfigs", json::array())},
            {"_counter", counter + 1}};
  call.mutated = true;
  return JsonReply(ShowPolicy(stored));
}

// Projects: every project id exists; its number is derived from the id.
json ProjectPolicyInitial() {
  return {{"version", 1},
          {"bindings", {{{"role", "roles/owner"}, {"members", {"user:owner@example.com"}}}}},
          {"_counter", 1}};
}

ApiResponse GetProject(Call& call) {
  const std::string& project = call.args[0];
  return JsonReply({{"projectNumber", std::to_string(ProjectNumber(project))},
                    {"projectId", project},
                    {"lifecycleState", "ACTIVE"},
                    {"name", project},
                    {"createTime", "2024-01-01T00:00:00.000Z"}});
}

ApiResponse GetProjectIam(Call& call) {
  return JsonReply(ShowPolicy(PolicyFor(call, "projects/" + call.args[0], ProjectPolicyInitial())));
}

ApiResponse SetProjectIam(Call& call) { return SetPolicy(call, "projects/" + call.args[0], ProjectPolicyInitial()); }

// Service accounts, keyed by email; the path may name one by email or unique id, under any project or "-".
json* FindAccount(Call& call) {
  auto& accounts = call.world["serviceAccounts"];
  if (auto it = accounts.find(call.args[1]); it != accounts.end()) return &*it;
  for (auto& account : accounts) {
    if (account.value("uniqueId", "") == call.args[1]) return &account;
  }
  return nullptr;
}

ApiResponse NoAccount(const Call& call) {
  return Aip193Error(ErrorKind::kNotFound, "Service account projects/" + call.args[0] + "/serviceAccounts/" +
                                               call.args[1] + " does not exist.");
}

ApiResponse CreateAccount(Call& call) {
  ApiResponse error;
  auto body = call.Body("iam", "CreateServiceAccountRequest", ErrorShape::kAip193, error);
  if (!body) return error;
  std::string id = body->value("accountId", "");
  static const std::regex kId("^[a-z]([-a-z0-9]{4,28}[a-z0-9])$");
  if (!std::regex_match(id, kId)) {
    return Aip193Error(
        ErrorKind::kInvalidArgument,
        "Invalid account ID \"" + id +
            "\": it must be 6-30 characters of lowercase letters, digits and hyphens, start with a "
            "letter and not end with a hyphen.",
        json::array({BadRequestDetail("account_id", "must match [a-z]([-a-z0-9]*[a-z0-9]), 6-30 characters")}));
  }
  const std::string& project = call.args[0];
  std::string email = id + "@" + project + ".iam.gserviceaccount.com";
  if (call.world["serviceAccounts"].contains(email)) {
    return Aip193Error(ErrorKind::kAlreadyExists,
                       "Service account " + id + " already exists within project projects/" + project + ".",
                       json::array({ResourceInfoDetail("", "projects/" + project + "/serviceAccounts/" + email)}));
  }
  json given = body->value("serviceAccount", json::object());
  std::string unique_id = "1" + std::to_string(ProjectNumber(email)) + std::to_string(100000000 + NextId(call.world));
  json account = {{"name", "projects/" + project + "/serviceAccounts/" + email},
                  {"projectId", project},
                  {"uniqueId", unique_id},
                  {"email", email},
                  {"etag", "MDEwMjE5MjA="},
                  {"oauth2ClientId", unique_id}};
  for (const char* field : {"displayName", "description"}) {
    if (given.contains(field)) account[field] = given[field];
  }
  call.world["serviceAccounts"][email] = account;
  call.mutated = true;
  return JsonReply(account);
}

ApiResponse ListAccounts(Call& call) {
  json accounts = json::array();
  for (const auto& account : call.world["serviceAccounts"]) {
    if (call.args[0] == "-" || account.value("projectId", "") == call.args[0]) accounts.push_back(account);
  }
  json reply = json::object();
  if (!accounts.empty()) reply["accounts"] = accounts;
  return JsonReply(reply);
}

ApiResponse GetAccount(Call& call) {
  json* account = FindAccount(call);
  if (account == nullptr) return NoAccount(call);
  return JsonReply(*account);
}

ApiResponse DeleteAccount(Call& call) {
  json* account = FindAccount(call);
  if (account == nullptr) return NoAccount(call);
  std::string email = (*account)["email"];
  call.world["policies"].erase("serviceAccounts/" + email);
  call.world["serviceAccounts"].erase(email);
  call.mutated = true;
  return JsonReply(json::object());
}

ApiResponse GetAccountIam(Call& call) {
  json* account = FindAccount(call);
  if (account == nullptr) return NoAccount(call);
  return JsonReply(
      ShowPolicy(PolicyFor(call, "serviceAccounts/" + (*account)["email"].get<std::string>(), json::object())));
}

ApiResponse SetAccountIam(Call& call) {
  json* account = FindAccount(call);
  if (account == nullptr) return NoAccount(call);
  return SetPolicy(call, "serviceAccounts/" + (*account)["email"].get<std::string>(), json::object());
}

}  // namespace

std::vector<Route> IamRoutes() {
  static const std::string project = "^/v1/projects/([^/:]+)";
  static const std::string accounts = project + "/serviceAccounts", account = accounts + "/([^/:]+)";
  return {
      {"POST", accounts + "$", "iam.projects.serviceAccounts.create", CreateAccount},
      {"GET", accounts + "$", "iam.projects.serviceAccounts.list", ListAccounts},
      {"GET", account + "$", "iam.projects.serviceAccounts.get", GetAccount},
      {"DELETE", account + "$", "iam.projects.serviceAccounts.delete", DeleteAccount},
      {"POST", account + ":getIamPolicy$", "iam.projects.serviceAccounts.getIamPolicy", GetAccountIam},
      {"POST", account + ":setIamPolicy$", "iam.projects.serviceAccounts.setIamPolicy", SetAccountIam},
      {"GET", project + "$", "cloudresourcemanager.projects.get", GetProject},
      {"POST", project + ":getIamPolicy$", "cloudresourcemanager.projects.getIamPolicy", GetProjectIam},
      {"POST", project + ":setIamPolicy$", "cloudresourcemanager.projects.setIamPolicy", SetProjectIam},
  };
}

}  // namespace tputrain::emulator
