#include <algorithm>

#include "tputrain/core/json_fields.h"
#include "tputrain/gcp/iam/types.h"

namespace tputrain::gcp::iam {
namespace {

using nlohmann::json;

Binding* FindBinding(Policy& policy, const std::string& role) {
  for (auto& binding : policy.bindings) {
    if (binding.role == role && binding.condition.is_null()) return &binding;
  }
  return nullptr;
}

}  // namespace

Policy PolicyFromJson(const json& body) {
  Policy policy;
  if (!body.is_object()) return policy;
  policy.raw = body;
  policy.version = body.value("version", 0);
  policy.etag = core::StringAt(body, "etag");
  const json bindings = body.value("bindings", json::array());
  for (const auto& item : bindings) {
    if (!item.is_object()) continue;
    Binding binding{core::StringAt(item, "role"), {}, item.value("condition", json())};
    const json members = item.value("members", json::array());
    for (const auto& member : members) {
      if (member.is_string()) binding.members.push_back(member.get<std::string>());
    }
    policy.bindings.push_back(std::move(binding));
  }
  return policy;
}

json PolicyToJson(const Policy& policy) {
  json body = policy.raw.is_object() ? policy.raw : json::object();
  // Version 3 keeps conditional bindings intact on write.
  body["version"] = 3;
  if (!policy.etag.empty()) body["etag"] = policy.etag;
  json bindings = json::array();
  for (const auto& binding : policy.bindings) {
    json item = {{"members", binding.members}, {"role", binding.role}};
    if (!binding.condition.is_null()) item["condition"] = binding.condition;
    bindings.push_back(std::move(item));
  }
  if (bindings.empty()) {
    body.erase("bindings");
  } else {
    body["bindings"] = bindings;
  }
  return body;
}

bool AddMember(Policy& policy, const std::string& role, const std::string& member) {
  Binding* binding = FindBinding(policy, role);
  if (binding == nullptr) {
    policy.bindings.push_back({role, {member}, json()});
    return true;
  }
  if (std::find(binding->members.begin(), binding->members.end(), member) != binding->members.end()) return false;
  binding->members.push_back(member);
  return true;
}

bool RemoveMember(Policy& policy, const std::string& role, const std::string& member) {
  Binding* binding = FindBinding(policy, role);
  if (binding == nullptr) return false;
  auto it = std::find(binding->members.begin(), binding->members.end(), member);
  if (it == binding->members.end()) return false;
  binding->members.erase(it);
  if (binding->members.empty()) {
    policy.bindings.erase(policy.bindings.begin() + (binding - policy.bindings.data()));
  }
  return true;
}

bool HasMember(const Policy& policy, const std::string& role, const std::string& member) {
  for (const auto& binding : policy.bindings) {
    if (binding.role == role && binding.condition.is_null() &&
        std::find(binding.members.begin(), binding.members.end(), member) != binding.members.end()) {
      return true;
    }
  }
  return false;
}

ServiceAccount ServiceAccountFromJson(const json& body) {
  ServiceAccount account;
  if (!body.is_object()) return account;
  account.name = core::StringAt(body, "name");
  account.email = core::StringAt(body, "email");
  account.unique_id = core::StringAt(body, "uniqueId");
  account.display_name = core::StringAt(body, "displayName");
  account.description = core::StringAt(body, "description");
  account.raw = body;
  return account;
}

std::string ServiceAccountEmail(const std::string& account_id, const std::string& project) {
  return account_id + "@" + project + ".iam.gserviceaccount.com";
}

std::string ProjectOfEmail(const std::string& email) {
  auto at = email.find('@');
  if (at == std::string::npos) return "";
  auto dot = email.find('.', at);
  return email.substr(at + 1, dot == std::string::npos ? std::string::npos : dot - at - 1);
}

}  // namespace tputrain::gcp::iam
