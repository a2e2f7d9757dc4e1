#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/config/settings.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/serviceusage/client.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/workflow/cluster_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_ray.h"

// The reads behind `describe` and `list` of what tputrain makes in Google Cloud, one call each.
// A request holds what was typed (NAME, --cluster); where the resource lives comes from the
// settings (project, location). Each is checked against the API's path pattern before any call:
// a usage error names the flag, variable or file the bad value came from.
namespace tputrain::workflow {

// A setting that becomes a URL path segment (project, location), checked; a usage error names
// what is missing or malformed and where it came from.
core::Result<std::string> RequireSetting(const config::Settings& settings, const std::string& key);
// The location, checked as RequireSetting checks it; "-" when none is set (every location, as the
// list APIs spell it).
core::Result<std::string> LocationOrAll(const config::Settings& settings);
// Cluster `name` (typed as `field`: NAME or --cluster) in the configured project and location.
core::Result<gcp::container::ClusterRef> ClusterRefOf(const config::Settings& settings, const std::string& name,
                                                      std::string_view field);
// The same, read from the root's settings.
core::Result<std::string> RequireSetting(Root& root, const std::string& key);
core::Result<std::string> LocationOrAll(Root& root);
core::Result<gcp::container::ClusterRef> ClusterRefOf(Root& root, const std::string& name, std::string_view field);
// Where a list was read, for the line that says it is empty ("No clusters in us-central1."): the
// configured location, else "project P" (every location was listed).
std::string ListedWhere(Root& root);
// The configured project and zone (location), both required, checked.
struct ProjectZone {
  std::string project;
  std::string zone;
};
core::Result<ProjectZone> ProjectAndZone(Root& root);

// `cluster describe NAME` (one cluster) or `cluster list` (name empty: the project's clusters in
// the configured location, or in every one).
struct ClusterRead {
  std::string name;
  core::Status Check() const;
};
core::Result<std::vector<gcp::container::Cluster>> ReadClusters(Root& root, const ClusterRead& request);

// `cluster get-credentials NAME`: a kubeconfig entry for the cluster (gke-gcloud-auth-plugin, or
// with `token_exec` tputrain auth print-access-token); under --dry-run, only where it would go.
struct ClusterCredentialsRequest {
  std::string name;
  std::string kubeconfig;  // --kubeconfig; empty: KUBECONFIG, else ~/.kube/config
  bool token_exec = false;
};
core::Result<KubeconfigWritten> GetClusterCredentials(Root& root, const ClusterCredentialsRequest& request);

// `nodepool describe NAME --cluster C` or `nodepool list --cluster C` (name empty).
struct NodePoolRead {
  std::string cluster;
  std::string name;
  core::Status Check() const;
};
core::Result<std::vector<gcp::container::NodePool>> ReadNodePools(Root& root, const NodePoolRead& request);

// `tpu-vm describe NAME` (a zone is required) or `tpu-vm list` (name empty: every zone unless
// one is set). The nodes' raw JSON never holds the Ray token tpu-vm create --ray keeps in their
// metadata.
struct TpuVmRead {
  std::string name;
  core::Status Check() const;
};
core::Result<std::vector<gcp::tpu::Node>> ReadTpuVms(Root& root, const TpuVmRead& request);
// `tpu-vm ray-status NAME`: each host's Ray, as it reported it.
core::Result<std::vector<RayNodeStatus>> ReadTpuVmRay(Root& root, const TpuVmRead& request);

// `registry describe NAME` or `registry list` (name empty), in the region of the configured
// location (a zone means its region: repositories live in regions).
struct RepositoryRead {
  std::string name;
  core::Status Check() const;
};
core::Result<std::vector<gcp::artifactregistry::Repository>> ReadRepositories(Root& root,
                                                                              const RepositoryRead& request);

// `services list`: the project's enabled APIs, or with `available` every API it could enable.
struct ServicesRead {
  bool available = false;
};
core::Result<std::vector<gcp::serviceusage::Service>> ReadServices(Root& root, const ServicesRead& request);

}  // namespace tputrain::workflow
