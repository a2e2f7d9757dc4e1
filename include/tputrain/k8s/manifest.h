#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

namespace tputrain::k8s {

// One object from a manifest, with the fields every step needs pulled out.
struct Object {
  nlohmann::json json;
  std::string api_version;
  std::string kind;
  std::string name;
  std::string ns;      // empty until scope is known (cluster-scoped kinds keep it empty)
  std::string source;  // "file.yaml#2", for messages

  std::string Describe() const;  // "RayCluster default/ray" or "Namespace ml"
};

// Splits multi-document YAML into objects. Values are typed the way the API server's YAML
// reader (sigs.k8s.io/yaml, YAML 1.1) types plain scalars. Empty documents are skipped; `kind:
// List` is flattened. Errors name `source`, the document and the missing field.
core::Result<std::vector<Object>> ParseManifests(std::string_view text, const std::string& source);

// Dependency order for apply: CRDs, then Namespaces, then what others refer to
// (ServiceAccounts, RBAC, ConfigMaps, Secrets, Services), then workloads; stable otherwise.
// Deletion uses the reverse.
std::vector<Object> OrderForApply(std::vector<Object> objects);
int ApplyRank(std::string_view kind);

}  // namespace tputrain::k8s
