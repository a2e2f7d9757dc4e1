#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/storage/types.h"
#include "tputrain/workflow/image_build.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/zone_failover.h"

// The provisioning creates as requests: the flags as typed, checked and turned into what the
// workflow sends, by the command that takes them and by a stack file's step alike. A bad value
// is one usage line naming the flag ("--num-nodes: ...", "NAME: ..."), before any call. Project
// and location come in checked (the caller's settings, or the stack file's keys).
namespace tputrain::workflow {

// `cluster create NAME`.
struct ClusterCreateRequest {
  std::string project;
  std::string location;
  std::string name;
  bool autopilot = false;
  bool ray_operator = false;
  bool gcs_fuse = false;
  bool workload_identity = false;  // the pool PROJECT.svc.id.goog, unless workload_pool names one
  std::string workload_pool;
  std::string machine_type;
  std::string num_nodes = "3";
  std::string cluster_version;
  std::vector<std::string> scopes;
  std::vector<std::string> node_locations;
  TpuPoolRequest pool;  // --tpu-type and friends: the slice pools made once the cluster runs

  core::Result<ClusterCreate> Resolve() const;
};

// `nodepool create NAME --cluster C`.
struct NodePoolCreateRequest {
  gcp::container::ClusterRef cluster;  // its name checked here (--cluster)
  std::string name;
  TpuPoolRequest pool;  // its location is the cluster's (the zone catalog's check)
  FailoverFlags failover;
  bool async = false;  // --async: refused with a failover plan, whose stockouts show only at the end

  struct Resolved {
    gcp::container::ClusterRef cluster;
    std::vector<gcp::container::NodePoolSpec> pools;
    ZoneFailover failover;
  };
  core::Result<Resolved> Resolve() const;
};

// `bucket create NAME`.
struct BucketCreateRequest {
  std::string name;  // NAME or gs://NAME
  std::string location;
  std::string storage_class;
  bool uniform = false;

  core::Result<gcp::storage::BucketSpec> Resolve() const;
};

// A bucket as given (NAME or gs://NAME), without the scheme.
std::string BucketNameOf(const std::string& name);

// `iam bind-workload-identity --ksa NS/NAME (--bucket B | --project-role | --gsa G) --role R`.
struct WorkloadIdentityRequest {
  std::string ksa;  // NAMESPACE/NAME
  std::string bucket;
  bool project_role = false;
  std::string gsa;
  std::string role;  // default with --gsa: roles/iam.workloadIdentityUser
  bool annotate_ksa = false;

  struct Resolved {
    std::string ns;
    std::string ksa;
    std::string role;
    std::string gsa;
    std::string bucket;  // without gs://
    bool project_role = false;
    bool annotate_ksa = false;
  };
  core::Result<Resolved> Resolve() const;
};

// The binding `resolved` asks for in `project`. The KSA's own principal needs the project number
// (one read, or a placeholder under a dry run).
core::Result<PolicyBinding> BindingOf(ProvisionEnv& env, const std::string& project,
                                      const WorkloadIdentityRequest::Resolved& resolved);

// `iam service-account create NAME [--role R]...`.
struct ServiceAccountCreateRequest {
  std::string project;
  std::string account;
  std::string display_name;
  std::vector<std::string> roles;

  core::Status Check() const;
};

// Creates the account and grants it each project role.
core::Result<std::vector<Outcome>> CreateServiceAccountWithRoles(ProvisionEnv& env,
                                                                 const ServiceAccountCreateRequest& request);

// `registry create NAME`: repositories live in regions, so a zone means its region.
struct RepositoryCreateRequest {
  std::string project;
  std::string location;
  std::string name;
  std::string description;
  std::vector<std::string> labels;  // KEY=VALUE

  core::Status CheckName() const;
  core::Result<gcp::artifactregistry::RepositoryRef> Ref() const;
  core::Result<gcp::artifactregistry::RepositorySpec> Spec() const;
};

// `image build DIR --tag IMAGE`. `location` is the run's ("-" or empty: any), which the
// tag's repository must serve; every other flag is checked without project or location.
struct ImageBuildFlags {
  std::string project;
  std::string location;
  std::string context_dir = ".";
  std::string tag;
  std::string timeout;  // --timeout: the build's own
  std::string max_context_size = "1GiB";

  core::Result<ImageBuildRequest> Resolve() const;
};

// `services enable SERVICE...`: each a DNS name (it becomes one URL path segment).
core::Status CheckServiceNames(const std::vector<std::string>& services);

}  // namespace tputrain::workflow
