#include "tputrain/k8s/manifest.h"

#include <yaml-cpp/yaml.h>

#include "tputrain/core/json_fields.h"
#include "tputrain/yaml/bounded.h"
#include "tputrain/yaml/to_json.h"

namespace tputrain::k8s {
namespace {

core::Result<Object> MakeObject(nlohmann::json json, const std::string& where) {
  if (!json.is_object()) return core::Fail(core::Error::Usage(where + ": expected a mapping (a Kubernetes object)"));
  Object object;
  object.source = where;
  object.api_version = core::StringAt(json, "apiVersion");
  object.kind = core::StringAt(json, "kind");
  if (object.api_version.empty()) return core::Fail(core::Error::Usage(where + ": apiVersion is required"));
  if (object.kind.empty()) return core::Fail(core::Error::Usage(where + ": kind is required"));
  const auto& metadata = json.contains("metadata") ? json["metadata"] : nlohmann::json();
  if (!metadata.is_object() || !metadata.contains("name") || !metadata["name"].is_string() ||
      metadata["name"].get<std::string>().empty()) {
    return core::Fail(core::Error::Usage(where + ": metadata.name is required (" + object.kind + ")"));
  }
  object.name = metadata["name"].get<std::string>();
  if (metadata.contains("namespace") && metadata["namespace"].is_string()) {
    object.ns = metadata["namespace"].get<std::string>();
  }
  object.json = std::move(json);
  return object;
}

}  // namespace

std::string Object::Describe() const { return kind + " " + (ns.empty() ? name : ns + "/" + name); }

core::Result<std::vector<Object>> ParseManifests(std::string_view text, const std::string& source) {
  auto loaded = yaml::LoadAll(text, source);
  if (!loaded) return core::Fail(loaded.error());
  const std::vector<YAML::Node>& documents = *loaded;
  std::vector<Object> objects;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (!documents[i] || documents[i].IsNull()) continue;
    std::string where = source + " (document " + std::to_string(i + 1) + ")";
    nlohmann::json json = yaml::ToJson(documents[i]);
    if (core::StringAt(json, "kind") == "List" && json.contains("items") && json["items"].is_array()) {
      for (size_t j = 0; j < json["items"].size(); ++j) {
        auto object = MakeObject(json["items"][j], where + " items[" + std::to_string(j) + "]");
        if (!object) return core::Fail(object.error());
        objects.push_back(std::move(*object));
      }
      continue;
    }
    auto object = MakeObject(std::move(json), where);
    if (!object) return core::Fail(object.error());
    objects.push_back(std::move(*object));
  }
  if (objects.empty()) return core::Fail(core::Error::Usage(source + ": no Kubernetes objects found"));
  return objects;
}

int ApplyRank(std::string_view kind) {
  if (kind == "CustomResourceDefinition") return 0;
  if (kind == "Namespace") return 1;
  if (kind == "ServiceAccount" || kind == "ClusterRole" || kind == "Role" || kind == "ConfigMap" || kind == "Secret" ||
      kind == "PersistentVolume" || kind == "PersistentVolumeClaim" || kind == "StorageClass" ||
      kind == "PriorityClass" || kind == "ResourceQuota" || kind == "LimitRange") {
    return 2;
  }
  if (kind == "ClusterRoleBinding" || kind == "RoleBinding" || kind == "Service") return 3;
  return 4;
}

std::vector<Object> OrderForApply(std::vector<Object> objects) {
  std::stable_sort(objects.begin(), objects.end(),
                   [](const Object& a, const Object& b) { return ApplyRank(a.kind) < ApplyRank(b.kind); });
  return objects;
}

}  // namespace tputrain::k8s
