#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/watch.h"

namespace tputrain::k8s {

// "raycluster/ray", "RayCluster/ray", "rayclusters.ray.io/ray", "lws/x", "deploy/x", "po/x".
struct ObjectRef {
  std::string api_version;  // "ray.io/v1"
  std::string kind;         // "RayCluster"
  std::string name;
};
// Resolves KIND/NAME through discovery (resource names, kinds, short names, kind.group).
core::Result<ObjectRef> ParseObjectRef(const std::string& text, Client& client);

struct WaitResult {
  nlohmann::json object;
  WatchStats stats;
  std::vector<std::string> notes;  // what could not be checked, for a warning line each
};

// Waits with a watch until the object is ready (ReadyVerdict). A timeout is an error that says
// why, from the API: the last status seen and the object's pods that are not ready, each with
// its phase and latest event ("FailedScheduling: 0/3 nodes are available: ...").
// A ready RayCluster must also have each multi-host TPU slice on one node pool
// (CheckRaySlicePlacement): a split slice fails in one line naming the replica and the pools.
core::Result<WaitResult> WaitReady(Client& client, Discovery& discovery, const ObjectRef& ref, const std::string& ns,
                                   const WatchOptions& options, WatchDeps deps);

// Why `object`'s pods are not ready: one line per pod (at most five).
std::string ExplainPods(Client& client, const std::string& ns, std::string_view kind, const nlohmann::json& object);

}  // namespace tputrain::k8s
