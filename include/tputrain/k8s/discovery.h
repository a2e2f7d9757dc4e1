#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"

namespace tputrain::k8s {

struct ResourceInfo {
  std::string group_version;  // "v1", "ray.io/v1"
  std::string resource;       // "rayclusters"
  std::string kind;
  bool namespaced = true;

  // /api/v1/namespaces/NS/pods or /apis/ray.io/v1/namespaces/NS/rayclusters (cluster-scoped
  // kinds ignore `ns`); then "/NAME" when a name is given.
  std::string CollectionPath(const std::string& ns) const;
  std::string ObjectPath(const std::string& ns, const std::string& name) const;
};

// Maps apiVersion/kind to the resource path and scope, from the server's discovery documents
// (/api and /apis once per process, then each group/version when first needed).
class Discovery {
 public:
  explicit Discovery(Client& client) : client_(client) {}

  // An unknown kind is an error naming the operator that provides it (KubeRay, LeaderWorkerSet,
  // JobSet) when tputrain knows it.
  core::Result<ResourceInfo> Lookup(const std::string& api_version, const std::string& kind);
  // The CustomResourceDefinition that serves `info`'s kind as the cluster has it installed, read
  // once per process (GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/<resource>.<group>).
  // nullptr for a kind no CRD serves (a built-in group, or no such CRD) and for a CRD this user
  // may not read (403).
  core::Result<std::shared_ptr<const nlohmann::json>> InstalledCrd(const ResourceInfo& info);
  // Forgets what is known about `group`, its CRDs included (after one was created or changed), so
  // it is read again.
  void Forget(const std::string& group);

 private:
  core::Status LoadGroups();
  core::Status LoadGroupVersion(const std::string& group_version);

  Client& client_;
  std::mutex mutex_;
  bool groups_loaded_ = false;
  std::set<std::string> served_;                                                 // group versions the server lists
  std::map<std::string, std::map<std::string, ResourceInfo>> by_group_version_;  // gv → kind → info
  std::map<std::string, std::shared_ptr<const nlohmann::json>> crds_;            // CRD name → CRD, or nullptr
};

// "the KubeRay operator (on GKE: the Ray add-on, ...)" for a known group, else "".
std::string OperatorFor(const std::string& group);

}  // namespace tputrain::k8s
