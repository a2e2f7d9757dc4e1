#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::gcp::iam {

struct Binding {
  std::string role;
  std::vector<std::string> members;
  nlohmann::json condition;  // null when unconditional
};

// An IAM policy (iam v1, cloudresourcemanager v1 and storage v1 share the shape). Fields this
// type does not model (auditConfigs, kind, resourceId) are kept in `raw` and sent back as read.
struct Policy {
  int version = 0;
  std::string etag;
  std::vector<Binding> bindings;
  nlohmann::json raw = nlohmann::json::object();
};

Policy PolicyFromJson(const nlohmann::json& json);
nlohmann::json PolicyToJson(const Policy& policy);

// Adds `member` to the unconditional binding of `role` (appending the binding if there is none).
// Returns false when it was already there.
bool AddMember(Policy& policy, const std::string& role, const std::string& member);
// Removes `member` from the unconditional binding of `role`, dropping the binding if it empties.
bool RemoveMember(Policy& policy, const std::string& role, const std::string& member);
bool HasMember(const Policy& policy, const std::string& role, const std::string& member);

struct ServiceAccount {
  std::string name;  // projects/P/serviceAccounts/EMAIL
  std::string email;
  std::string unique_id;
  std::string display_name;
  std::string description;
  nlohmann::json raw;
};

ServiceAccount ServiceAccountFromJson(const nlohmann::json& json);
// "ID@PROJECT.iam.gserviceaccount.com".
std::string ServiceAccountEmail(const std::string& account_id, const std::string& project);
// The project an email names (the SA's own project, which its IAM calls use).
std::string ProjectOfEmail(const std::string& email);

}  // namespace tputrain::gcp::iam
