#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/gcp/operations/operation.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::container {

// The six scopes gcloud gives node pools when --scopes is not given.
const std::vector<std::string>& DefaultOauthScopes();
// gcloud's --scopes aliases ("cloud-platform", "storage-ro", ...) expanded to URLs.
std::vector<std::string> ExpandScopes(const std::vector<std::string>& scopes);

struct LocationRef {
  std::string project;
  std::string location;  // a zone or a region
  // Each part is one URL path segment, percent-encoded: a name can never reach another resource.
  std::string Parent() const {
    return "projects/" + http::PathSegment(project) + "/locations/" + http::PathSegment(location);
  }
};

struct ClusterRef {
  std::string project;
  std::string location;
  std::string cluster;
  LocationRef Location() const { return {project, location}; }
  std::string Name() const { return Location().Parent() + "/clusters/" + http::PathSegment(cluster); }
  // The kubeconfig context gcloud container clusters get-credentials writes for this cluster,
  // gke_PROJECT_LOCATION_CLUSTER; tputrain writes and recognises the same name.
  std::string KubeContextName() const { return "gke_" + project + "_" + location + "_" + cluster; }
};

struct NodePoolRef {
  ClusterRef cluster;
  std::string pool;
  std::string Name() const { return cluster.Name() + "/nodePools/" + http::PathSegment(pool); }
};

// NodePoolAutoscaling, as a flex-start pool sends it.
struct NodePoolAutoscaling {
  int min_node_count = 0;
  int max_node_count = 0;
  std::string location_policy;  // "ANY" | "BALANCED"
};

// What a node pool is asked to be. Empty/absent fields are not sent (the server's default).
struct NodePoolSpec {
  std::string name;
  std::string machine_type;
  int node_count = 0;
  std::optional<int> disk_size_gb;        // config.diskSizeGb; unset: the server's 100
  std::vector<std::string> oauth_scopes;  // full URLs
  std::string tpu_topology;               // placementPolicy.tpuTopology, "4x4"
  std::string placement_type;             // "COMPACT"
  // placementPolicy.policyName: the Compute workload policy (in the cluster's region) that places
  // a multi-host tpu7x slice, which takes no tpuTopology.
  std::string placement_policy;
  // The slice's topology however it is sent (tpuTopology, or the workload policy's
  // acceleratorTopology; "2x2x1" for a single host): never sent by itself.
  std::string slice_topology;
  // The run makes the workload policy placement_policy names (--placement-policy: the user's own).
  bool own_placement_policy = false;
  std::string version;            // nodePool.version: the nodes' GKE version, pinned
  std::string workload_metadata;  // "GCE_METADATA" | "GKE_METADATA"
  std::optional<int> threads_per_core;
  std::vector<std::string> node_locations;
  bool spot = false;
  std::string reservation;  // a specific reservation to consume
  // Flex-start (GKE's Dynamic Workload Scheduler): config.flexStart, with no reservation, no
  // auto-repair and autoscaling from 0, as `gcloud container node-pools create --flex-start`.
  bool flex_start = false;
  // queuedProvisioning.enabled: the pool grows only for ProvisioningRequests (GKE's queued
  // provisioning, which Kueue's provisioning admission check drives).
  bool queued_provisioning = false;
  std::string max_run_duration;  // config.maxRunDuration, "3600s"
  std::optional<NodePoolAutoscaling> autoscaling;
  bool auto_repair = true;
  bool no_reservation = false;  // config.reservationAffinity NO_RESERVATION
  std::map<std::string, std::string> resource_labels;
  std::string service_account;
};

struct ClusterSpec {
  std::string name;
  bool autopilot = false;
  bool ray_operator = false;
  bool gcs_fuse = false;
  std::string workload_pool;  // "PROJECT.svc.id.goog"
  std::string cluster_version;
  std::vector<std::string> node_locations;
  NodePoolSpec default_pool;  // Standard clusters; Autopilot sends gcloud's placeholder
  std::map<std::string, std::string> resource_labels;
};

using operations::RpcStatus;

// GKE's own operation: a status rather than google.longrunning's `done`.
struct Operation {
  std::string name;  // a bare id
  std::string operation_type;
  std::string status;  // PENDING, RUNNING, DONE, ABORTING
  std::string status_message;
  std::string target_link;
  std::string location;
  std::optional<RpcStatus> error;
  nlohmann::json raw;
  bool done() const { return status == "DONE"; }
};

struct StatusCondition {
  std::string code;  // GCE_STOCKOUT, GCE_QUOTA_EXCEEDED, ...
  std::string message;
  std::string canonical_code;
};

struct NodePool {
  std::string name;
  std::string status;
  std::string status_message;
  std::string machine_type;
  int node_count = 0;
  std::optional<int> disk_size_gb;
  std::string tpu_topology;
  std::string placement_type;
  std::string placement_policy;
  std::string version;
  std::string workload_metadata;
  std::optional<int> threads_per_core;
  std::vector<std::string> locations;
  bool spot = false;
  std::string reservation;
  bool flex_start = false;
  std::map<std::string, std::string> resource_labels;
  std::vector<StatusCondition> conditions;
  nlohmann::json raw;
};

struct Cluster {
  std::string name;
  std::string location;
  std::string status;
  std::string status_message;
  std::string endpoint;
  std::string ca_certificate;  // base64 PEM, verbatim
  std::string current_master_version;
  bool autopilot = false;
  bool ray_operator = false;
  bool gcs_fuse = false;
  std::string workload_pool;
  std::map<std::string, std::string> resource_labels;
  std::vector<NodePool> node_pools;
  std::vector<StatusCondition> conditions;
  nlohmann::json raw;
};

// Request bodies, exactly as sent (field names and shapes as gcloud's; see json.cc).
nlohmann::json CreateClusterBody(const LocationRef& parent, const ClusterSpec& spec);
nlohmann::json CreateNodePoolBody(const ClusterRef& parent, const NodePoolSpec& spec);
nlohmann::json NodePoolToJson(const NodePoolSpec& spec);

Operation OperationFromJson(const nlohmann::json& json);
NodePool NodePoolFromJson(const nlohmann::json& json);
Cluster ClusterFromJson(const nlohmann::json& json);

// The fields in which an existing resource differs from what was asked, as
// "field: want X, have Y". Fields the spec leaves to the server are not compared.
std::vector<std::string> DiffNodePool(const NodePoolSpec& want, const NodePool& have);
std::vector<std::string> DiffCluster(const ClusterSpec& want, const Cluster& have);

}  // namespace tputrain::gcp::container
