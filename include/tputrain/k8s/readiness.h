#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/k8s/watch.h"

namespace tputrain::k8s {

// When an object of `kind` is ready, from its status alone:
//   RayCluster            status.state == "ready" (and observedGeneration caught up); condition
//                         ReplicaFailure=True (KubeRay could not create its pods) fails the wait
//   LeaderWorkerSet       condition Available=True
//   JobSet                condition Completed=True, or every child Job's pods ready (a serving
//                         JobSet never completes); Failed=True fails the wait
//   Service               a LoadBalancer: status.loadBalancer.ingress set; any other type: exists
//   Deployment            availableReplicas >= spec.replicas, observedGeneration caught up
//   Pod                   condition Ready=True (phase Failed/Succeeded fails the wait)
//   Job                   condition Complete=True (Failed=True fails the wait)
//   CustomResourceDefinition  condition Established=True
//   Namespace             phase Active;  anything else: exists.
Verdict ReadyVerdict(std::string_view kind, const nlohmann::json* object);

// Done once the object is gone.
Verdict GoneVerdict(const nlohmann::json* object);

// The label selector of the pods an object runs ("ray.io/cluster=NAME"), or "" if unknown.
std::string PodSelectorFor(std::string_view kind, const nlohmann::json& object);

// The status of condition `type` ("True", "False", "Unknown"), or "" when absent.
std::string ConditionStatus(const nlohmann::json& object, std::string_view type);

}  // namespace tputrain::k8s
