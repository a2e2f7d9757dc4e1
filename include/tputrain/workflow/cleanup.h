#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/provision.h"

// `tputrain cleanup`: everything a run's ledger holds, deleted in reverse dependency order.
// The ledger is the source of truth; the cloud is asked only about what it names.
namespace tputrain::workflow {

// Cleanup tiers, first deleted first: workloads before the machines they run on, machines
// before the storage and identities they use. TPU VMs share the clusters' tier: neither needs
// the other gone, and each delete takes minutes, so they overlap.
struct CleanupTierOf {
  ResourceKind kind;
  int tier;
};
inline constexpr CleanupTierOf kCleanupTiers[] = {
    {ResourceKind::kRayJob, 0},
    // Builds (cancelled if running, their tarballs deleted) have a tier of their own: the Ray
    // and Kubernetes tiers hold one kind each; they go before the bucket their tarball is in.
    {ResourceKind::kBuild, 1},
    // A published Saxml model is unpublished while sax-http still runs: its record lives in the
    // cell's sax-root, and a later admin server would load it again.
    {ResourceKind::kServedModel, 2},
    {ResourceKind::kK8sObject, 3},
    {ResourceKind::kNodePool, 4},
    {ResourceKind::kCluster, 5},
    {ResourceKind::kTpuVm, 5},
    {ResourceKind::kQueuedResource, 5},
    {ResourceKind::kBucket, 6},
    {ResourceKind::kRepository, 6},
    // The IAP rule of a TPU VM's Ray: nothing depends on it once the VMs are gone.
    {ResourceKind::kFirewallRule, 6},
    // A tpu7x pool's workload policy: Compute refuses to delete it while a pool names it, so it
    // goes after the pools and clusters.
    {ResourceKind::kWorkloadPolicy, 6},
    {ResourceKind::kIamMember, 7},
    {ResourceKind::kServiceAccount, 8}};
// The tier of `kind`; kinds the table does not know (kUnknown) go last.
int CleanupTier(ResourceKind kind);

// The ledger key of the cluster a node-pool entry belongs to.
std::string PoolClusterKey(const state::LedgerEntry& pool);

// What cleanup does with one ledger entry. Code decides on this; people and --format json see
// its phrase (CleanupActionPhrase).
enum class CleanupAction {
  kDelete,           // "delete"
  kWaitThenDelete,   // "wait for OPERATION, then delete": its create or delete is still running
  kGoesWithCluster,  // "goes with its cluster": a node pool of a cluster deleted in the same run
  kKeep,             // "kept (adopted; --force deletes it)"
  kKeepShared,       // "kept (shared: it held objects this run did not upload; --force deletes it if empty)"
};

// The phrase of `action`; `operation` fills in kWaitThenDelete's.
std::string CleanupActionPhrase(CleanupAction action, std::string_view operation = "");

// What one ledger entry will meet.
struct PlannedDelete {
  state::LedgerEntry entry;
  CleanupAction step = CleanupAction::kDelete;
  // step's phrase, as the table and the JSON show it (delete | wait for OPERATION, then delete |
  // goes with its cluster | kept (adopted; --force deletes it)).
  std::string Phrase() const { return CleanupActionPhrase(step, entry.operation); }
};

struct CleanupPlan {
  std::string run_id;
  std::vector<PlannedDelete> deletes;  // in deletion order
  std::vector<PlannedDelete> kept;     // adopted resources, left alone without `force`
};

// Live entries in cleanup order; within a tier the latest recorded first. Node pools of a
// cluster that is itself deleted go with it (one operation instead of one per pool).
CleanupPlan PlanCleanup(const state::Ledger& ledger, bool force);
nlohmann::json ToJson(const CleanupPlan& plan);

// A Jobs client with the transport it sends through (which it does not own).
struct RayJobsAccess {
  std::shared_ptr<void> keeps_alive;  // what the client's transport stack needs (the caller's)
  ray::JobsClient* client = nullptr;
};

// How cleanup reaches what the cloud APIs do not: the Kubernetes cluster an object lives in and
// the Ray dashboard a job was submitted to. Set by the caller (they need credentials and TLS
// settings only it has).
struct CleanupReach {
  // A connection to the cluster a k8s-object entry's access record names.
  std::function<core::Result<std::unique_ptr<k8s::Connection>>(const state::AccessRecord& access)> connect_cluster;
  // A Jobs client for where a ray-job entry's job was submitted.
  std::function<core::Result<RayJobsAccess>(const RayJobTarget& target)> ray_jobs;
};

// Carries out `plan` with `env` (whose ledger and run_id must be the plan's run), tier by tier,
// each tier's deletes in parallel. A failure does not stop the tiers after it: a stuck
// Kubernetes object must not keep a TPU node pool billing. 404 is "already gone". Returns every
// outcome; the error (the first one's kind) lists the failures and what was done.
core::Result<std::vector<Outcome>> RunCleanup(ProvisionEnv& env, const CleanupPlan& plan, const CleanupReach& reach);

// The cloud deletes cleanup sends for one entry (a node pool, cluster, TPU VM, bucket with its
// objects, IAM member or service account). A pending create or delete operation recorded in
// the entry is waited for first. Private to cleanup; exposed for its tests.
core::Result<Outcome> DeleteCloudEntry(ProvisionEnv& env, const state::LedgerEntry& entry);

// Stops a ray-job entry's job if it still runs (the job then ends STOPPED); unreachable Ray
// heads are reported, not fatal when `head_doomed` (its RayCluster goes in this cleanup too).
core::Result<Outcome> StopRayJobEntry(ProvisionEnv& env, const state::LedgerEntry& entry, const CleanupReach& reach,
                                      bool head_doomed);

// Deletes the k8s-object entries of one cluster (they share details.access) in reverse apply
// order, Foreground, waiting until each is gone.
// Unpublishes a served-model entry's model through sax-http (the service proxy of the cluster its
// access record names). A model the cell no longer has is already gone; a sax-http that is not
// there any more (no Service, no endpoints) leaves the record in the cell's sax-root, said as a
// warning, not a failure: nothing is left to unpublish through.
core::Result<Outcome> UnpublishServedModelEntry(ProvisionEnv& env, const state::LedgerEntry& entry,
                                                const CleanupReach& reach);

core::Result<std::vector<Outcome>> DeleteK8sEntries(ProvisionEnv& env, const std::vector<state::LedgerEntry>& entries,
                                                    const CleanupReach& reach);

}  // namespace tputrain::workflow
