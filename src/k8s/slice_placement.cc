#include "slice_placement.h"

#include <map>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::k8s {
namespace {

// groupName → numOfHosts, from the RayCluster's spec (KubeRay's default is 1).
std::map<std::string, int64_t> HostsPerGroup(const nlohmann::json& raycluster) {
  std::map<std::string, int64_t> hosts;
  for (const auto& group : core::ArrayAt(core::ObjectAt(raycluster, "spec"), "workerGroupSpecs")) {
    hosts[core::StringAt(group, "groupName")] = core::IntAt(group, "numOfHosts", 1);
  }
  return hosts;
}

// The node pools of the nodes pods are bound to, read once per node.
class PoolReader {
 public:
  explicit PoolReader(Client& client) : client_(client) {}

  // The node's pool; "" when the node is gone or has no pool label. An error only when the
  // node cannot be read for another reason (RBAC).
  core::Result<std::string> PoolOf(const std::string& node) {
    if (auto known = pools_.find(node); known != pools_.end()) return known->second;
    auto response = client_.Send("GET", "/api/v1/nodes/" + http::PathSegment(node));
    if (!response) return core::Fail(response.error());
    std::string pool;
    if (response->ok()) {
      auto json = core::ParseJson(response->body, "node/" + node).value_or(nullptr);
      pool = core::StringAt(core::ObjectAt(core::ObjectAt(json, "metadata"), "labels"), kNodePoolLabel);
    } else if (response->status != 404) {
      return core::Fail(ErrorFromStatus(response->status, response->body, "node/" + node));
    }
    pools_[node] = pool;
    return pool;
  }

 private:
  Client& client_;
  std::map<std::string, std::string> pools_;
};

std::string PoolsText(const std::map<std::string, int>& pools) {
  std::string text;
  for (const auto& [pool, pods] : pools) {
    text += (text.empty() ? "" : ", ") + pool + " (" + std::to_string(pods) + (pods == 1 ? " host)" : " hosts)");
  }
  return text;
}

}  // namespace

core::Result<SlicePlacement> CheckRaySlicePlacement(Client& client, const std::string& ns,
                                                    const nlohmann::json& raycluster) {
  SlicePlacement placement;
  const std::string name = core::StringAt(core::ObjectAt(raycluster, "metadata"), "name");
  const auto hosts = HostsPerGroup(raycluster);
  auto list = client.GetJson("/api/v1/namespaces/" + http::PathSegment(ns) + "/pods?labelSelector=" +
                                 http::UrlEncode("ray.io/cluster=" + name + ",ray.io/node-type=worker"),
                             "the worker pods of RayCluster " + ns + "/" + name);
  if (!list) return core::Fail(list.error());

  PoolReader reader(client);
  std::map<std::string, std::map<std::string, int>> pools_of_replica;  // replica → pool → hosts
  int unlabelled = 0;
  int without_pool = 0;
  for (const auto& pod : core::ArrayAt(*list, "items")) {
    const auto& metadata = core::ObjectAt(pod, "metadata");
    if (!core::StringAt(metadata, "deletionTimestamp").empty()) continue;
    const auto& labels = core::ObjectAt(metadata, "labels");
    auto group = hosts.find(core::StringAt(labels, "ray.io/group"));
    if (group == hosts.end() || group->second <= 1) continue;  // a single-host slice cannot split
    const std::string replica = core::StringAt(labels, kReplicaLabel);
    if (replica.empty()) {
      ++unlabelled;
      continue;
    }
    const std::string node = core::StringAt(core::ObjectAt(pod, "spec"), "nodeName");
    if (node.empty()) continue;
    auto pool = reader.PoolOf(node);
    if (!pool) {
      placement.notes.push_back("the node pools of its TPU slices were not checked: " + pool.error().message);
      return placement;
    }
    if (pool->empty()) {
      ++without_pool;
      continue;
    }
    ++pools_of_replica[replica][*pool];
  }
  if (unlabelled > 0) {
    placement.notes.push_back(std::to_string(unlabelled) + " TPU worker pods carry no " + std::string(kReplicaLabel) +
                              " label (KubeRay before 1.5, or its RayMultiHostIndexing gate off): whether each "
                              "slice is on one node pool was not checked");
  }
  if (without_pool > 0 && pools_of_replica.empty()) {
    placement.notes.push_back("its TPU nodes have no " + std::string(kNodePoolLabel) +
                              " label (not GKE): whether each slice is on one node pool was not checked");
  }
  std::vector<std::string> split;
  for (const auto& [replica, pools] : pools_of_replica) {
    ++placement.replicas_checked;
    if (pools.size() > 1) split.push_back("replica " + replica + " is split over node pools " + PoolsText(pools));
  }
  if (split.empty()) return placement;
  std::string message = split.front();
  if (split.size() == 2) message += " (and 1 more replica is split)";
  if (split.size() > 2) message += " (and " + std::to_string(split.size() - 1) + " more replicas are split)";
  message +=
      ": every host of a TPU slice must be on one node pool, or JAX hangs at start; give the worker group the "
      "node-pool affinity of template raycluster-maxtext, or use GKE's Ray add-on, whose TPU webhook adds it";
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition, message));
}

}  // namespace tputrain::k8s
