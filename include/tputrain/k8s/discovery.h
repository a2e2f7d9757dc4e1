#pragma once

#include <map>
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
  // Forgets what is known about `group` (after its CRD was created), so it is read again.
  void Forget(const std::string& group);

 private:
  core::Status LoadGroups();
  core::Status LoadGroupVersion(const std::string& group_version);

  Client& client_;
  std::mutex mutex_;
  bool groups_loaded_ = false;
  std::set<std::string> served_;  // group versions the server lists
  std::map<std::string, std::map<std::string, ResourceInfo>> by_group_version_;  // gv → kind → info
};

// "the KubeRay operator (on GKE: the Ray add-on, ...)" for a known group, else "".
std::string OperatorFor(const std::string& group);

}  // namespace tputrain::k8s
