#include "tputrain/workflow/provision_requests.h"

#include "tputrain/core/duration.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/core/number.h"
#include "tputrain/gcp/iam/types.h"
#include "tputrain/gcp/labels.h"
#include "tputrain/gcp/names.h"
#include "tputrain/k8s/names.h"
#include "tputrain/workflow/expiry.h"

namespace tputrain::workflow {
namespace {

// GKE's node pool limit of nodes per zone.
constexpr int64_t kMaxPoolNodes = 1000;

constexpr std::uint64_t kLargestContext = 1ULL << 40;

// Multi-regions hold the regions they are named after: a repository in "us" suits us-east5.
bool RepositoryServes(const std::string& repository_location, const std::string& region) {
  if (repository_location == region) return true;
  const bool multi_region =
      repository_location == "us" || repository_location == "europe" || repository_location == "asia";
  return multi_region && region.rfind(repository_location + "-", 0) == 0;
}

}  // namespace

core::Result<ClusterCreate> ClusterCreateRequest::Resolve() const {
  if (auto valid = gcp::CheckResourceId("NAME", name, gcp::kGkeNameLength); !valid) return core::Fail(valid.error());
  ClusterCreate request;
  request.ref = {project, location, name};
  auto& spec = request.spec;
  spec.name = name;
  spec.autopilot = autopilot;
  spec.ray_operator = ray_operator;
  spec.gcs_fuse = gcs_fuse;
  spec.workload_pool = workload_pool;
  if (workload_identity && spec.workload_pool.empty()) spec.workload_pool = project + ".svc.id.goog";
  spec.cluster_version = cluster_version;
  spec.node_locations = node_locations;
  spec.default_pool.machine_type = machine_type;
  auto nodes = core::ParseCount("--num-nodes", num_nodes, kMaxPoolNodes);
  if (!nodes) return core::Fail(nodes.error());
  spec.default_pool.node_count = static_cast<int>(*nodes);
  spec.default_pool.oauth_scopes = gcp::container::ExpandScopes(scopes);
  if (!pool.tpu_type.empty()) {
    if (autopilot) {
      return core::Fail(core::Error::Usage("--tpu-type: Autopilot provisions TPU nodes itself; drop --autopilot"));
    }
    TpuPoolRequest in_cluster = pool;
    in_cluster.location = location;
    auto pools = NodePoolsFor(pool.tpu_type, in_cluster);
    if (!pools) return core::Fail(pools.error());
    request.pools = std::move(*pools);
  }
  if (auto valid = CheckClusterCreate(request); !valid) return core::Fail(valid.error());
  return request;
}

core::Result<NodePoolCreateRequest::Resolved> NodePoolCreateRequest::Resolve() const {
  if (auto valid = gcp::CheckResourceId("--cluster", cluster.cluster, gcp::kGkeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  TpuPoolRequest in_cluster = pool;
  in_cluster.location = cluster.location;
  auto pools = NodePoolsFor(name, in_cluster);
  if (!pools) return core::Fail(pools.error());
  if (!failover.zones.empty() && !pool.node_locations.empty()) {
    return core::Fail(core::Error::Usage("--zones: conflicts with --node-locations (give one)"));
  }
  // --retry-until-up alone retries the cluster's own zone.
  const bool zonal = IsZone(cluster.location);
  auto resolved = ResolveFailover(failover, failover.retry_until_up && zonal ? cluster.location : "", cluster.location);
  if (!resolved) return core::Fail(resolved.error());
  if (!pool.capacity.reservation.empty() && (resolved->zones.size() > 1 || resolved->auto_zones)) {
    return core::Fail(core::Error::Usage("--zones: a reservation holds VMs of one zone; give that zone alone"));
  }
  if (auto waits = CheckAsyncFailover(*resolved, async); !waits) return core::Fail(waits.error());
  if (failover.retry_until_up && resolved->zones.empty()) {
    return core::Fail(core::Error::Usage("--retry-until-up: name the zones to try with --zones (a regional cluster)"));
  }
  return Resolved{cluster, std::move(*pools), std::move(*resolved)};
}

std::string BucketNameOf(const std::string& name) { return name.rfind("gs://", 0) == 0 ? name.substr(5) : name; }

core::Result<gcp::storage::BucketSpec> BucketCreateRequest::Resolve() const {
  const std::string bucket = BucketNameOf(name);
  if (auto valid = gcp::CheckBucketName("NAME", bucket); !valid) return core::Fail(valid.error());
  return gcp::storage::BucketSpec{bucket, location, storage_class, uniform, {}};
}

core::Result<WorkloadIdentityRequest::Resolved> WorkloadIdentityRequest::Resolve() const {
  auto slash = ksa.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ksa.size()) {
    return core::Fail(core::Error::Usage("--ksa: expected NAMESPACE/NAME, got '" + ksa + "'"));
  }
  if (auto valid = k8s::CheckNamespace("--ksa", ksa.substr(0, slash)); !valid) return core::Fail(valid.error());
  if (auto valid = k8s::CheckObjectName("--ksa", ksa.substr(slash + 1)); !valid) return core::Fail(valid.error());
  int targets = (bucket.empty() ? 0 : 1) + (project_role ? 1 : 0) + (gsa.empty() ? 0 : 1);
  if (targets != 1)
    return core::Fail(core::Error::Usage("--bucket: give exactly one of --bucket, --project-role, --gsa"));
  Resolved resolved;
  resolved.ns = ksa.substr(0, slash);
  resolved.ksa = ksa.substr(slash + 1);
  resolved.role = role;
  if (resolved.role.empty() && !gsa.empty()) resolved.role = "roles/iam.workloadIdentityUser";
  if (resolved.role.empty()) return core::Fail(core::Error::Usage("--role: required (e.g. roles/storage.objectUser)"));
  if (auto valid = gcp::CheckRole("--role", resolved.role); !valid) return core::Fail(valid.error());
  if (!bucket.empty()) {
    if (auto valid = gcp::CheckBucketName("--bucket", BucketNameOf(bucket)); !valid) return core::Fail(valid.error());
  }
  if (!gsa.empty()) {
    if (auto valid = gcp::CheckServiceAccountEmail("--gsa", gsa); !valid) return core::Fail(valid.error());
  }
  if (annotate_ksa && gsa.empty()) {
    return core::Fail(core::Error::Usage(
        "--annotate-ksa: only with --gsa (a --bucket or --project-role binding names the KSA itself and needs no "
        "annotation)"));
  }
  resolved.gsa = gsa;
  resolved.bucket = BucketNameOf(bucket);
  resolved.project_role = project_role;
  resolved.annotate_ksa = annotate_ksa;
  return resolved;
}

core::Result<PolicyBinding> BindingOf(ProvisionEnv& env, const std::string& project,
                                      const WorkloadIdentityRequest::Resolved& resolved) {
  PolicyBinding binding;
  binding.role = resolved.role;
  if (!resolved.gsa.empty()) {
    binding.target = PolicyTarget::kServiceAccount;
    binding.resource = resolved.gsa;
    binding.member = LegacyWorkloadIdentityMember(project, resolved.ns, resolved.ksa);
    return binding;
  }
  auto member = WorkloadIdentityPrincipal(env, project, resolved.ns, resolved.ksa);
  if (!member) return core::Fail(member.error());
  binding.member = *member;
  binding.target = resolved.project_role ? PolicyTarget::kProject : PolicyTarget::kBucket;
  binding.resource = resolved.project_role ? project : resolved.bucket;
  return binding;
}

core::Status ServiceAccountCreateRequest::Check() const {
  if (auto valid = gcp::CheckServiceAccountId("NAME", account); !valid) return core::Fail(valid.error());
  for (const auto& role : roles) {
    if (auto valid = gcp::CheckRole("--role", role); !valid) return core::Fail(valid.error());
  }
  return {};
}

core::Result<std::vector<Outcome>> CreateServiceAccountWithRoles(ProvisionEnv& env,
                                                                 const ServiceAccountCreateRequest& request) {
  std::vector<Outcome> outcomes;
  auto account = CreateServiceAccount(env, request.project, request.account, request.display_name);
  if (!account) return core::Fail(account.error());
  outcomes.push_back(*account);
  const std::string email = gcp::iam::ServiceAccountEmail(request.account, request.project);
  for (const auto& role : request.roles) {
    auto bound = AddPolicyBinding(env, {PolicyTarget::kProject, request.project, role, "serviceAccount:" + email});
    if (!bound) return core::Fail(bound.error());
    outcomes.push_back(*bound);
  }
  return outcomes;
}

core::Status RepositoryCreateRequest::CheckName() const { return gcp::CheckResourceId("NAME", name, 63); }

core::Result<gcp::artifactregistry::RepositoryRef> RepositoryCreateRequest::Ref() const {
  if (auto valid = CheckName(); !valid) return core::Fail(valid.error());
  return gcp::artifactregistry::RepositoryRef{project, core::RegionOf(location), name};
}

core::Result<gcp::artifactregistry::RepositorySpec> RepositoryCreateRequest::Spec() const {
  auto parsed = gcp::ParseLabels("--labels", labels, {std::begin(kReservedLabels), std::end(kReservedLabels)});
  if (!parsed) return core::Fail(parsed.error());
  return gcp::artifactregistry::RepositorySpec{"DOCKER", description, *parsed};
}

core::Result<ImageBuildRequest> ImageBuildFlags::Resolve() const {
  ImageBuildRequest request;
  auto image = gcp::artifactregistry::ParseDockerImage("--tag", tag);
  if (!image) return core::Fail(image.error());
  request.image = *image;
  request.project = project;
  // The repository is expected beside the run's other resources: a tag naming another region is
  // a typo more often than a choice, and its push would cross regions.
  if (!location.empty() && location != "-" && !RepositoryServes(image->location, core::RegionOf(location))) {
    return core::Fail(core::Error::Usage("--tag: repository " + image->repository + " is in " + image->location +
                                         ", not in the region of --location " + location + " (" +
                                         core::RegionOf(location) + "); tag " + core::RegionOf(location) +
                                         "-docker.pkg.dev/... or pass --location " + image->location));
  }
  if (!timeout.empty()) {
    auto parsed = core::ParseDuration("--timeout", timeout);
    if (!parsed) return core::Fail(parsed.error());
    request.timeout = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(*parsed).count()) + "s";
  }
  auto max_size = core::ParseByteSize("--max-context-size", max_context_size, kLargestContext);
  if (!max_size) return core::Fail(max_size.error());
  request.max_context_bytes = *max_size;
  request.context_dir = context_dir;
  return request;
}

core::Status CheckServiceNames(const std::vector<std::string>& services) {
  for (const auto& service : services) {
    // A service name is a DNS name; it becomes one URL path segment.
    if (service.empty() || service.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos) {
      return core::Fail(
          core::Error::Usage("SERVICE: expected an API such as container.googleapis.com, got '" + service + "'"));
    }
  }
  return {};
}

}  // namespace tputrain::workflow
