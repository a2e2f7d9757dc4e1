#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/gcp/storage/types.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/prices.h"

// Provisioning: the order of calls, their parallelism, idempotent creates, waiting, and the
// ledger. The API clients only send; everything that decides lives here.
namespace tputrain::workflow {

inline constexpr char kRunLabel[] = "tputrain-run";
// The label --ttl sets on what a create makes: the unix time after which it may be deleted.
inline constexpr char kExpiresLabel[] = "tputrain-expires";

using state::ResourceKind;

struct ApiEndpoints {
  std::string container;
  std::string tpu;
  std::string storage;  // ends in storage/v1/
  std::string iam;
  std::string resourcemanager;  // cloudresourcemanager
  std::string serviceusage;
  std::string artifactregistry;
  std::string cloudbuild;
  std::string compute;  // ends in compute/v1/
};

// What every provisioning call needs from its caller, beside the runtime.
struct ProvisionEnv : core::Runtime {
  http::Transport& transport;
  ApiEndpoints endpoints;
  // Where creates and deletes are recorded; null records nothing.
  state::LedgerStore* ledger = nullptr;
  std::string run_id;  // also the value of the tputrain-run label
  gcp::operations::PollOptions poll;
  // Waiting out "the cluster already has an operation" and the per-cluster operation quota.
  gcp::operations::PollOptions busy_retry{std::chrono::milliseconds(2000), 1.5, std::chrono::milliseconds(20000),
                                          std::chrono::minutes(30)};
  bool async = false;  // return once each operation has started
  // A create that meets the resource in ERROR (a pool left by a stockout, a failed cluster)
  // deletes it and creates it again, instead of reporting it (--recreate-unusable).
  bool recreate_unusable = false;
  // --dry-run: mutating requests are appended here and nothing is sent (not even reads).
  std::vector<http::Request>* dry_run = nullptr;
  // Read before creating (`tputrain up`): what exists is adopted, or refused when it differs,
  // without sending the create, so that a second `up` sends only reads. Under dry_run the reads
  // are sent (only they), and what exists is reported adopted (or different) instead of planned.
  bool look_first = false;
  // TPU list prices, asked for when a TPU resource is about to be created, for the cost record
  // its ledger entry keeps (spend.h). Unset, or answering null: the record has no rate.
  std::function<const Prices*()> prices;
  // --ttl: the tputrain-expires label (unix seconds) of what is created; 0: none.
  int64_t expires_at = 0;
};

// What happened to one resource. Code decides on this; tables, progress lines and --format json
// show its phrase (OutcomeActionPhrase).
enum class OutcomeAction {
  kCreated,             // "created"
  kResumed,             // "resumed": it exists and is this run's (an earlier command of the run made it)
  kAdopted,             // "adopted (not this run's)": it was there before; cleanup keeps it unless --force
  kStarted,             // "started": --async, the operation runs on
  kDeleted,             // "deleted"
  kAlreadyGone,         // "already gone"
  kBound,               // "bound"
  kAlreadyBound,        // "already bound"
  kUnbound,             // "unbound"
  kWouldSend,           // "would send": --dry-run
  kWouldStop,           // "would stop": a Ray job under --dry-run
  kWouldDelete,         // "would delete": a Kubernetes object under --dry-run
  kStopped,             // "stopped": a Ray job told to stop
  kAlreadyFinished,     // "already finished": a Ray job that had ended
  kGoesWithRayCluster,  // "goes with its RayCluster": its head is deleted in the same cleanup
  kGoesWithTpuVm,       // "goes with its TPU VM": the TPU VM (or slices) running its head goes too
  kHeadUnreachable,     // "Ray head unreachable": nothing left to stop
  kGoesWithCluster,     // "goes with its cluster": a node pool of a cluster being deleted (--delete-leaked)
  kWentWithCluster,     // "went with its cluster": deleted by deleting its cluster
  kUnpublished,         // "unpublished": a model taken out of its Saxml cell
  kWouldUnpublish,      // "would unpublish": a served model under --dry-run
  kServerGone,          // "sax-http gone": no server left to unpublish a model through
  kKeptShared,          // "kept: holds others' objects": a shared bucket (Cloud Build's) cleanup leaves
};
std::string_view OutcomeActionPhrase(OutcomeAction action);

// One resource's fate in a command.
struct Outcome {
  ResourceKind kind = ResourceKind::kUnknown;
  std::string name;      // what the user calls it
  std::string resource;  // the ledger key: the full API name or a composite key
  OutcomeAction action = OutcomeAction::kCreated;
  std::string operation;
  nlohmann::json details = nlohmann::json::object();
};
nlohmann::json ToJson(const Outcome& outcome);
nlohmann::json ToJson(const std::vector<Outcome>& outcomes);

struct ClusterCreate {
  gcp::container::ClusterRef ref;
  gcp::container::ClusterSpec spec;
  // TPU slice pools created (concurrently) once the cluster is RUNNING.
  std::vector<gcp::container::NodePoolSpec> pools;
};

// What a cluster create refuses before any call, in one usage line naming the flag: a pool of a
// TPU generation with a minimum GKE version (tpu7x) on a --cluster-version below it, or none.
// CreateCluster checks it first too.
core::Status CheckClusterCreate(const ClusterCreate& request);

// Creates the cluster (or adopts an identical one), waits for it, then creates `pools`.
// Every outcome reached is returned even when a later step fails: the error then lists them.
core::Result<std::vector<Outcome>> CreateCluster(ProvisionEnv& env, const ClusterCreate& request);
// Creates several node pools at once; FAILED_PRECONDITION "cluster already has an operation"
// and the concurrent-operations 429 are waited out and retried.
core::Result<std::vector<Outcome>> CreateNodePools(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                                   const std::vector<gcp::container::NodePoolSpec>& pools);
core::Result<Outcome> DeleteCluster(ProvisionEnv& env, const gcp::container::ClusterRef& ref);
core::Result<Outcome> DeleteNodePool(ProvisionEnv& env, const gcp::container::NodePoolRef& ref);

core::Result<Outcome> CreateTpuVm(ProvisionEnv& env, const gcp::tpu::NodeRef& ref, const gcp::tpu::NodeSpec& spec);
// Several TPU VMs at once (independent resources).
core::Result<std::vector<Outcome>> CreateTpuVms(
    ProvisionEnv& env, const std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>>& vms);
core::Result<Outcome> DeleteTpuVm(ProvisionEnv& env, const gcp::tpu::NodeRef& ref);

core::Result<Outcome> CreateBucket(ProvisionEnv& env, const std::string& project, const gcp::storage::BucketSpec& spec);
// A bucket holding objects is deleted only with `force` (objects first, every version).
core::Result<Outcome> DeleteBucket(ProvisionEnv& env, const std::string& bucket, bool force);

core::Result<Outcome> CreateServiceAccount(ProvisionEnv& env, const std::string& project, const std::string& account_id,
                                           const std::string& display_name);
core::Result<Outcome> DeleteServiceAccount(ProvisionEnv& env, const std::string& email);

// An Artifact Registry repository (docker by default), with the run label.
core::Result<Outcome> CreateRepository(ProvisionEnv& env, const gcp::artifactregistry::RepositoryRef& ref,
                                       const gcp::artifactregistry::RepositorySpec& spec);
// Its images go with it.
core::Result<Outcome> DeleteRepository(ProvisionEnv& env, const gcp::artifactregistry::RepositoryRef& ref);

enum class PolicyTarget { kProject, kBucket, kServiceAccount };
struct PolicyBinding {
  PolicyTarget target = PolicyTarget::kProject;
  std::string resource;  // project id, bucket name or service-account email
  std::string role;
  std::string member;
};
// Read-modify-write with the etag, retried on 409 ABORTED; touches only `member`.
core::Result<Outcome> AddPolicyBinding(ProvisionEnv& env, const PolicyBinding& binding);
core::Result<Outcome> RemovePolicyBinding(ProvisionEnv& env, const PolicyBinding& binding);

// principal://iam.googleapis.com/projects/NUM/locations/global/workloadIdentityPools/
// PROJECT.svc.id.goog/subject/ns/NS/sa/KSA, with NUM looked up once (a placeholder in --dry-run).
core::Result<std::string> WorkloadIdentityPrincipal(ProvisionEnv& env, const std::string& project,
                                                    const std::string& ns, const std::string& ksa);
// serviceAccount:PROJECT.svc.id.goog[NS/KSA], the member a GSA's workloadIdentityUser binding takes.
std::string LegacyWorkloadIdentityMember(const std::string& project, const std::string& ns, const std::string& ksa);

}  // namespace tputrain::workflow
