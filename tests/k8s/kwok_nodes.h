#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/k8s/client.h"

namespace tputrain::testing {

// One GKE node pool's nodes, as GKE labels, taints and sizes them.
struct NodePoolShape {
  std::string cluster;
  std::string pool;          // cloud.google.com/gke-nodepool
  std::string machine_type;  // node.kubernetes.io/instance-type
  std::string zone;          // topology.kubernetes.io/zone
  int nodes = 1;
  bool spot = false;        // cloud.google.com/gke-spot
  bool flex_start = false;  // cloud.google.com/gke-flex-start
  // TPU pools (empty accelerator: a CPU pool, untainted).
  std::string accelerator;  // cloud.google.com/gke-tpu-accelerator
  std::string topology;     // cloud.google.com/gke-tpu-topology
  int tpu_chips = 0;        // google.com/tpu per node; TPU nodes are tainted google.com/tpu=present:NoSchedule
  int cpus = 0;
  int memory_gib = 0;
  // Where the API server reads these nodes' pod logs (a fake kubelet the test runs); empty: kwok's
  // default address, which serves none.
  std::string kubelet_ip;
  int kubelet_port = 10250;
};

// The shape of a node pool as the GKE API (the emulator) describes it; `location` and `locations`
// are the cluster's (a pool without its own locations is in the first). Machine types are read the
// way GKE documents them (ct6e-standard-4t: a v6e host with 4 chips).
NodePoolShape ShapeOfGkePool(const std::string& cluster, const std::string& location, const nlohmann::json& pool,
                             const nlohmann::json& locations = nlohmann::json::array());

// The Node objects of a pool, annotated for kwok (kwok.x-k8s.io/node=fake), which then acts as
// their kubelet: named gke-CLUSTER-POOL-N.
std::vector<nlohmann::json> PoolNodes(const NodePoolShape& shape);

// A pool of general-purpose nodes (n2-standard-32, untainted) for tests that need somewhere for
// CPU pods to run, and a v6e 4x4 slice (4 hosts of 4 chips).
NodePoolShape CpuPool(const std::string& cluster = "test", int nodes = 3);
NodePoolShape V6eSlicePool(const std::string& cluster, const std::string& pool);

// Creates the pool's Nodes (existing ones are kept) and waits until the node-lifecycle controller
// has made each schedulable (Ready, without the not-ready taint). Returns their names.
std::vector<std::string> AddNodePool(k8s::Client& admin, const NodePoolShape& shape);
// Deletes every Node of `cluster` whose pool is not in `keep` (all of them when it is empty).
void RemoveNodePools(k8s::Client& admin, const std::string& cluster, const std::vector<std::string>& keep = {});

// Makes the Nodes of every RUNNING node pool of every cluster the emulator at `emulator_url`
// holds (read from its /_emulator/state, the way a test reads it), and removes those of pools that
// are gone: `cluster create` / `nodepool create` on the emulator give the test API server
// schedulable nodes. The emulator knows nothing of Kubernetes. Returns the pools synced.
std::vector<NodePoolShape> SyncEmulatorNodePools(k8s::Client& admin, const std::string& emulator_url);

// Where each pod in `ns` matching `label_selector` was scheduled.
struct PodPlacement {
  std::string pod;
  nlohmann::json labels;
  std::string node;  // "" until scheduled
  std::string pool;  // the node's cloud.google.com/gke-nodepool
};
std::vector<PodPlacement> PodPlacements(k8s::Client& admin, const std::string& ns, const std::string& label_selector);

// The pools of each group of `placements`, grouped by the value of pod label `group_label`
// (a slice: a Ray worker-group replica, an LWS group, a JobSet Job).
std::map<std::string, std::set<std::string>> PoolsByGroup(const std::vector<PodPlacement>& placements,
                                                          const std::string& group_label);

}  // namespace tputrain::testing
