#include "tputrain/k8s/discovery.h"

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::k8s {
namespace {

std::string GroupOf(const std::string& api_version) {
  auto slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

std::string PrefixFor(const std::string& group_version) {
  return group_version.find('/') == std::string::npos ? "/api/" + group_version : "/apis/" + group_version;
}

}  // namespace

std::string ResourceInfo::CollectionPath(const std::string& ns) const {
  std::string path = PrefixFor(group_version);
  if (namespaced) path += "/namespaces/" + http::PathSegment(ns);
  return path + "/" + resource;
}

std::string ResourceInfo::ObjectPath(const std::string& ns, const std::string& name) const {
  return CollectionPath(ns) + "/" + http::PathSegment(name);
}

std::string OperatorFor(const std::string& group) {
  if (group == "ray.io") {
    return "the KubeRay operator (on GKE enable the Ray add-on: gcloud container clusters update CLUSTER "
           "--update-addons=RayOperator=ENABLED)";
  }
  if (group == "leaderworkerset.x-k8s.io") {
    return "the LeaderWorkerSet operator (install its release manifest: "
           "https://github.com/kubernetes-sigs/lws/releases)";
  }
  if (group == "jobset.x-k8s.io") {
    return "the JobSet operator (install its release manifest: https://github.com/kubernetes-sigs/jobset/releases)";
  }
  return "";
}

core::Status Discovery::LoadGroups() {
  if (groups_loaded_) return {};
  auto core_versions = client_.GetJson("/api", "API discovery");
  if (!core_versions) return core::Fail(core_versions.error());
  for (const auto& version : core::ArrayAt(*core_versions, "versions")) {
    if (version.is_string()) served_.insert(version.get<std::string>());
  }
  auto groups = client_.GetJson("/apis", "API discovery");
  if (!groups) return core::Fail(groups.error());
  for (const auto& group : core::ArrayAt(*groups, "groups")) {
    for (const auto& version : core::ArrayAt(group, "versions")) {
      if (auto name = core::StringAt(version, "groupVersion"); !name.empty()) served_.insert(name);
    }
  }
  groups_loaded_ = true;
  return {};
}

core::Status Discovery::LoadGroupVersion(const std::string& group_version) {
  if (by_group_version_.count(group_version) != 0) return {};
  auto list = client_.GetJson(PrefixFor(group_version), "API discovery for " + group_version);
  if (!list) return core::Fail(list.error());
  auto& kinds = by_group_version_[group_version];
  for (const auto& resource : core::ArrayAt(*list, "resources")) {
    std::string name = core::StringAt(resource, "name");
    if (name.empty() || name.find('/') != std::string::npos) continue;  // subresources
    ResourceInfo info{group_version, name, core::StringAt(resource, "kind"),
                      core::BoolAt(resource, "namespaced", false)};
    kinds.try_emplace(info.kind, info);
  }
  return {};
}

core::Result<ResourceInfo> Discovery::Lookup(const std::string& api_version, const std::string& kind) {
  std::lock_guard lock(mutex_);
  if (auto s = LoadGroups(); !s) return core::Fail(s.error());
  auto unknown = [&]() {
    std::string op = OperatorFor(GroupOf(api_version));
    std::string message = "the cluster does not serve " + kind + " (" + api_version + ")";
    message += op.empty() ? ": is its CustomResourceDefinition installed?" : ": it is provided by " + op;
    auto error = core::Error::Make(core::ErrorKind::kFailedPrecondition, message);
    error.where = "kubernetes";
    return core::Fail(error);
  };
  if (served_.count(api_version) == 0) return unknown();
  if (auto s = LoadGroupVersion(api_version); !s) return core::Fail(s.error());
  const auto& kinds = by_group_version_[api_version];
  auto it = kinds.find(kind);
  if (it == kinds.end()) return unknown();
  return it->second;
}

core::Result<std::shared_ptr<const nlohmann::json>> Discovery::InstalledCrd(const ResourceInfo& info) {
  std::string group = GroupOf(info.group_version);
  // The API server refuses a CRD whose group has no dot, so "" (core), apps, batch, ... are
  // built in, and asking would cost a request per kind.
  if (group.find('.') == std::string::npos) return std::shared_ptr<const nlohmann::json>();
  std::string name = info.resource + "." + group;
  std::lock_guard lock(mutex_);
  if (auto it = crds_.find(name); it != crds_.end()) return it->second;
  auto response =
      client_.Send("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + http::PathSegment(name));
  if (!response) return core::Fail(response.error());
  std::shared_ptr<const nlohmann::json> crd;
  if (response->ok()) {
    auto json = core::ParseJson(response->body, "").value_or(nullptr);
    if (json.is_object()) crd = std::make_shared<const nlohmann::json>(std::move(json));
  } else if (response->status != 403 && response->status != 404) {
    // 404: a built-in or aggregated API in a dotted group (networking.k8s.io); 403: reading CRDs
    // is not granted to everyone. Either way the server still validates what is sent.
    return core::Fail(ErrorFromStatus(response->status, response->body, "CustomResourceDefinition " + name));
  }
  crds_[name] = crd;
  return crd;
}

void Discovery::Forget(const std::string& group) {
  std::lock_guard lock(mutex_);
  groups_loaded_ = false;
  served_.clear();
  // A CRD's name is <plural>.<group>, and a plural has no dot.
  std::erase_if(crds_, [&](const auto& entry) { return entry.first.substr(entry.first.find('.') + 1) == group; });
  for (auto it = by_group_version_.begin(); it != by_group_version_.end();) {
    if (GroupOf(it->first) == group) {
      it = by_group_version_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace tputrain::k8s
