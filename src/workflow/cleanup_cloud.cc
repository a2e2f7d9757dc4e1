// The Google Cloud side of cleanup: one ledger entry's delete, after its pending operation.
#include "entry_details.h"
#include "source_bucket.h"
#include "tpu_vm_multislice.h"
#include "tputrain/gcp/compute/client.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/image_build.h"
#include "workload_policy.h"

namespace tputrain::workflow {
namespace {

using gcp::container::ClusterRef;
using internal::ClusterOf;
using internal::Detail;

core::Error Malformed(const state::LedgerEntry& entry, const std::string& missing) {
  return core::Error::Internal("run ledger: " + entry.KindName() + " " + entry.name + " lacks " + missing +
                               " in its details; delete it by hand and edit the ledger");
}

// A create or delete that a killed process left running: wait for it, so that the delete that
// follows meets a settled resource. Its own failure does not matter (the delete finds out what
// exists); an interrupted or timed-out wait does.
core::Status SettlePendingOperation(ProvisionEnv& env, const state::LedgerEntry& entry) {
  bool pending = entry.state == state::EntryState::kCreating || entry.state == state::EntryState::kDeleting;
  if (!pending || entry.operation.empty() || env.dry_run != nullptr) return {};
  env.reporter.Progress(entry.KindName() + " " + entry.name, "waiting for " + entry.operation);
  core::Error error;
  if (entry.kind == ResourceKind::kCluster || entry.kind == ResourceKind::kNodePool) {
    gcp::container::Client client(env.transport, env.endpoints.container);
    auto done = gcp::operations::Wait(
        gcp::container::OperationWaiting(client, ClusterOf(entry).Location(), entry.operation), env.poll, env);
    if (done) return {};
    error = done.error();
  } else if (entry.kind == ResourceKind::kTpuVm || entry.kind == ResourceKind::kQueuedResource) {
    gcp::tpu::Client client(env.transport, env.endpoints.tpu);
    auto done = gcp::operations::Wait(gcp::tpu::OperationWaiting(client, entry.operation), env.poll, env);
    if (done) return {};
    error = done.error();
  } else if (entry.kind == ResourceKind::kFirewallRule) {
    gcp::compute::Client client(env.transport, env.endpoints.compute);
    auto done = gcp::operations::Wait(
        gcp::compute::GlobalOperationWaiting(client, Detail(entry, "project"), entry.operation), env.poll, env);
    if (done) return {};
    error = done.error();
  } else if (entry.kind == ResourceKind::kWorkloadPolicy) {
    gcp::compute::ResourcePolicyClient client(env.transport, env.endpoints.compute);
    auto done = gcp::operations::Wait(gcp::compute::RegionOperationWaiting(client, Detail(entry, "project"),
                                                                           Detail(entry, "region"), entry.operation),
                                      env.poll, env);
    if (done) return {};
    error = done.error();
  } else {
    return {};
  }
  if (error.kind == core::ErrorKind::kCancelled ||
      (error.kind == core::ErrorKind::kDeadlineExceeded && error.http_status == 0)) {
    return core::Fail(error);
  }
  return {};
}

core::Result<PolicyTarget> TargetOf(const state::LedgerEntry& entry) {
  std::string target = Detail(entry, "target");
  if (target == "project") return PolicyTarget::kProject;
  if (target == "bucket") return PolicyTarget::kBucket;
  if (target == "service-account") return PolicyTarget::kServiceAccount;
  return core::Fail(Malformed(entry, "a target (project, bucket or service-account)"));
}

}  // namespace

core::Result<Outcome> DeleteCloudEntry(ProvisionEnv& env, const state::LedgerEntry& entry) {
  if (auto settled = SettlePendingOperation(env, entry); !settled) return core::Fail(settled.error());
  if (entry.kind == ResourceKind::kCluster) {
    ClusterRef ref = ClusterOf(entry);
    if (ref.cluster.empty() || ref.location.empty()) return core::Fail(Malformed(entry, "project/location/cluster"));
    return DeleteCluster(env, ref);
  }
  if (entry.kind == ResourceKind::kNodePool) {
    gcp::container::NodePoolRef ref = internal::NodePoolOf(entry);
    if (ref.pool.empty() || ref.cluster.cluster.empty()) return core::Fail(Malformed(entry, "cluster/nodepool"));
    return DeleteNodePool(env, ref);
  }
  if (entry.kind == ResourceKind::kTpuVm) {
    gcp::tpu::NodeRef ref = internal::TpuNodeOf(entry);
    if (ref.node.empty() || ref.zone.empty()) return core::Fail(Malformed(entry, "project/zone/node"));
    return DeleteTpuVm(env, ref);
  }
  if (entry.kind == ResourceKind::kQueuedResource) {
    gcp::tpu::QueuedResourceRef ref = internal::QueuedResourceOf(entry);
    if (ref.id.empty() || ref.zone.empty()) return core::Fail(Malformed(entry, "project/zone/queued_resource"));
    return DeleteQueuedResource(env, ref);
  }
  if (entry.kind == ResourceKind::kBucket) {
    // The project's Cloud Build bucket is shared: only the run's own tarballs were its (deleted
    // with its builds), so the bucket goes only if nothing else is in it.
    if (internal::IsSourceBucket(entry.name, Detail(entry, "project"))) {
      return internal::DeleteSourceBucket(env, entry.name);
    }
    // Only buckets the run created reach here (the plan keeps adopted ones): objects go too.
    return DeleteBucket(env, entry.name, /*force=*/true);
  }
  if (entry.kind == ResourceKind::kIamMember) {
    auto target = TargetOf(entry);
    if (!target) return core::Fail(target.error());
    return RemovePolicyBinding(env,
                               {*target, Detail(entry, "resource"), Detail(entry, "role"), Detail(entry, "member")});
  }
  if (entry.kind == ResourceKind::kServiceAccount) return DeleteServiceAccount(env, entry.name);
  if (entry.kind == ResourceKind::kRepository) {
    gcp::artifactregistry::RepositoryRef ref{Detail(entry, "project"), Detail(entry, "location"),
                                             Detail(entry, "repository")};
    if (ref.repository.empty() || ref.location.empty())
      return core::Fail(Malformed(entry, "project/location/repository"));
    return DeleteRepository(env, ref);
  }
  if (entry.kind == ResourceKind::kBuild) return DeleteBuild(env, entry);
  if (entry.kind == ResourceKind::kFirewallRule) {
    if (Detail(entry, "project").empty() || Detail(entry, "firewall").empty())
      return core::Fail(Malformed(entry, "project/firewall"));
    return DeleteFirewallRule(env, Detail(entry, "project"), Detail(entry, "firewall"));
  }
  if (entry.kind == ResourceKind::kWorkloadPolicy) {
    const gcp::compute::ResourcePolicyRef ref{Detail(entry, "project"), Detail(entry, "region"),
                                              Detail(entry, "policy")};
    if (ref.project.empty() || ref.region.empty() || ref.name.empty()) {
      return core::Fail(Malformed(entry, "project/region/policy"));
    }
    return internal::DeleteWorkloadPolicy(env, ref);
  }
  return core::Fail(core::Error::Internal("run ledger: cleanup does not know how to delete a " + entry.KindName()));
}

}  // namespace tputrain::workflow
