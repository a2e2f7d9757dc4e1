#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/kueue.h"
#include "tputrain/k8s/kueue_status.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/operators.h"

// Queues for a shared cluster, through Kueue: `tputrain queue create|delete|list|describe|status|
// wait`, and what `--queue` does to the workloads `submit`, `serve up` and `apply` make.
namespace tputrain::workflow {

// Kueue as tputrain installs it: the pinned release's manifest (v1beta2 served).
const OperatorInfo& KueueOperator();

struct QueueCreateRequest {
  std::string name;
  std::string ns;  // empty: the kubeconfig context's
  // TPU shapes to queue for, as slice types ("v6e-16"); empty: every shape the cluster's nodes have.
  std::vector<std::string> tpu_types;
  std::optional<int64_t> chips;  // quota per shape; default: the chips of the shape's nodes
  bool flex_start = false;       // admit through GKE's queued provisioning (a ProvisioningRequest)
  std::string kueue_manifest;    // empty: the pinned release's URL; a file for air-gapped sites
  std::chrono::milliseconds install_timeout{std::chrono::minutes(5)};
  bool dry_run = false;
  // With flex_start and one --tpu-type: first create this GKE node pool, flex-start with queued
  // provisioning (0 nodes, autoscaled to the slice's hosts), through `create_pools`.
  std::string create_nodepool;
};

// What queue commands work with: the cluster, the run ledger, and where a release manifest is
// fetched from.
struct QueueEnv : RecordedApplyEnv {
  http::Transport& downloads;
  // Creates node pools in the GKE cluster (ledgered); empty when the cluster is not a GKE one.
  std::function<core::Status(const std::vector<gcp::container::NodePoolSpec>&)> create_pools;
};

enum class KueueInstall {
  kFound,      // served already (someone else's install): used as it is, never deleted
  kInstalled,  // installed now by this run, recorded: `cleanup` removes it
};

struct QueueCreateOutcome {
  KueueInstall kueue = KueueInstall::kFound;
  std::vector<k8s::kueue::TpuShape> shapes;
  std::vector<k8s::ApplyResult> applied;  // the queue's objects (the install's are recorded too)
  std::string cluster_queue;
  std::string local_queue;  // "<namespace>/<name>"
};

// Checks the request (a usage error before any call), finds Kueue (refusing one that serves no
// v1beta2) or installs the pinned release (recorded), reads the TPU shapes from the nodes, and
// applies the queue's objects, recorded in the run ledger.
core::Result<QueueCreateOutcome> CreateQueue(QueueEnv& env, const QueueCreateRequest& request);

struct QueueDeleteOutcome {
  std::vector<k8s::DeleteResult> deleted;
  std::vector<std::string> kept;  // objects of the queue the run did not make, left alone
};

// Deletes the queue's objects (its LocalQueue, ClusterQueue, flavors, checks) that the run
// recorded as its own; the Kueue install stays for `cleanup` (other queues may use it).
core::Result<QueueDeleteOutcome> DeleteQueue(RecordedDeleteEnv& env, const std::string& name, const std::string& ns,
                                             std::chrono::milliseconds timeout, bool dry_run);

struct QueueSummary {
  std::string name;  // the LocalQueue
  std::string ns;
  k8s::kueue::ClusterQueueStatus cluster_queue;
  int64_t pending = 0;  // the LocalQueue's own counts
  int64_t admitted = 0;
};

// The LocalQueues of `ns` (every namespace when `all_namespaces`), each with its ClusterQueue's
// quota and checks. A usage error when Kueue is not served.
core::Result<std::vector<QueueSummary>> ListQueues(k8s::Client& client, k8s::Discovery& discovery,
                                                   const std::string& ns, bool all_namespaces);

struct QueueDescription {
  QueueSummary summary;
  std::vector<nlohmann::json> flavors;                  // the ResourceFlavors' specs, by name
  std::vector<k8s::kueue::Condition> check_conditions;  // each admission check's Active condition
  std::vector<std::string> check_names;
  std::vector<k8s::kueue::WorkloadStatus> workloads;
};
core::Result<QueueDescription> DescribeQueue(k8s::Client& client, k8s::Discovery& discovery, const std::string& name,
                                             const std::string& ns);

struct ProvisioningRequestStatus {
  std::string name;
  std::vector<k8s::kueue::Condition> conditions;
};

struct WorkloadReport {
  k8s::kueue::WorkloadStatus workload;
  std::optional<k8s::kueue::ClusterQueueStatus> cluster_queue;
  std::vector<ProvisioningRequestStatus> provisioning;
};

// The workloads of `ns` (in LocalQueue `queue` when given; only those matching `workload` when
// given: "KIND/NAME" of the object, or the Workload's name), with positions counted over their
// ClusterQueue (all namespaces when readable), their ClusterQueue's quota, and the conditions of
// the ProvisioningRequests Kueue made for them. NotFound when `workload` matches none.
core::Result<std::vector<WorkloadReport>> QueueStatus(k8s::Client& client, k8s::Discovery& discovery,
                                                      const std::string& ns, const std::string& queue,
                                                      const std::string& workload);

enum class QueueWaitFor { kAdmitted, kFinished };

// Polls QueueStatus for `workload` until it is admitted (or finished), reporting each change.
// On timeout, DeadlineExceeded with the last status (position, Kueue's message, the checks).
core::Result<WorkloadReport> WaitQueued(const core::Runtime& runtime, k8s::Client& client, k8s::Discovery& discovery,
                                        const std::string& ns, const std::string& workload, QueueWaitFor until,
                                        std::chrono::milliseconds timeout);

// One line on why a workload waits, or that it runs: "pending: position 2 in cluster queue q;
// google.com/tpu 16/16 in flavor ...; Kueue: couldn't assign flavors ...; check x: Pending ...".
std::string WorkloadLine(const WorkloadReport& report);

// The queue commands' --format json|yaml, their contract: what queue create made (each object's
// action as a --dry-run names it), what queue delete removed and kept, the list, a description
// (its workloads as WorkloadReports), and one workload's report with its WorkloadLine.
nlohmann::json ToJson(const QueueCreateOutcome& created, const std::string& run_id, bool dry_run);
nlohmann::json ToJson(const QueueDeleteOutcome& deleted, const std::string& run_id);
nlohmann::json ToJson(const std::vector<QueueSummary>& queues);
nlohmann::json ToJson(const QueueDescription& description);
nlohmann::json ToJson(const WorkloadReport& report);

// --queue NAME on submit, serve up and apply: the LocalQueue in `ns`, and whether its ClusterQueue
// admits through a ProvisioningRequest (then the workload gets what GKE's queued provisioning
// needs). A usage error naming --queue when there is no such LocalQueue.
core::Result<k8s::kueue::QueueLabelling> QueueLabellingFor(k8s::Client& client, const std::string& queue,
                                                           const std::string& ns);

// Labels `objects` for `queue` (QueueLabellingFor, then k8s::kueue::LabelForQueue); nothing when
// `queue` is empty.
core::Status PrepareForQueue(k8s::Client& client, const std::string& queue, const std::string& ns,
                             std::vector<k8s::Object>& objects);

}  // namespace tputrain::workflow
