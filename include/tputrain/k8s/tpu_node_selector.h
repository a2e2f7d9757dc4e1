#pragma once

#include <map>
#include <string>
#include <vector>

#include "tputrain/k8s/manifest.h"

// Steering TPU pods to the node pools of one capacity mode. GKE labels a Spot node
// cloud.google.com/gke-spot=true and a flex-start node cloud.google.com/gke-flex-start=true; a
// flex-start pool has no nodes until pods that select it wait, so its pods must name the label.
namespace tputrain::k8s {

// Adds `labels` to every nodeSelector, in any object and at any depth (a RayCluster's worker
// groups, a LeaderWorkerSet's leader and worker templates, a JobSet's jobs, a Deployment, a Job),
// that selects TPU nodes (has cloud.google.com/gke-tpu-accelerator). Returns how many pod
// templates it changed; a selector that already names one of the labels with another value is
// left alone and counted as not changed.
int AddTpuNodeSelector(std::vector<Object>& objects, const std::map<std::string, std::string>& labels);

}  // namespace tputrain::k8s
