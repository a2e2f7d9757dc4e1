#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"

// Every host of a multi-host TPU slice must be on one GKE node pool: GKE makes one pool per
// slice, and a slice's hosts on two pools are two half slices, on which JAX hangs at start.
// KubeRay ignores placement and calls such a RayCluster ready, so tputrain looks.
namespace tputrain::k8s {

inline constexpr std::string_view kNodePoolLabel = "cloud.google.com/gke-nodepool";
// KubeRay (>= 1.5, RayMultiHostIndexing) labels the pods of one worker-group replica with it.
inline constexpr std::string_view kReplicaLabel = "ray.io/worker-group-replica-name";

struct SlicePlacement {
  int replicas_checked = 0;        // multi-host replicas whose hosts' pools were read
  std::vector<std::string> notes;  // what could not be checked, and why
};

// Reads the worker pods of `raycluster` (the object, for its groups' numOfHosts), groups those of
// multi-host groups by kReplicaLabel and reads the kNodePoolLabel of the node each is bound to.
// A replica on more than one pool fails (kFailedPrecondition) in one line naming the replica and
// the pools. Pods KubeRay did not label, nodes without the pool label (not GKE) and nodes this
// user may not read are notes, not failures.
core::Result<SlicePlacement> CheckRaySlicePlacement(Client& client, const std::string& ns,
                                                    const nlohmann::json& raycluster);

}  // namespace tputrain::k8s
