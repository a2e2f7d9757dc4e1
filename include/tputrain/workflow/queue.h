#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/kueue.h"
#include "tputrain/k8s/kueue_status.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/operators.h"

// Queues for a shared cluster, through Kueue: `tputrain queue create|delete|list|describe|status|
// wait`, and what `--queue` does to the workloads `submit`, `serve up` and `apply` make.
namespace tputrain::workflow {

// Kueue as tputrain installs it: the pinned release's manifest (v1beta2 served).
const OperatorInfo& KueueOperator();

// `queue create NAME`: the flags as typed.
struct QueueCreateRequest {
  KubeAccessFlags access;  // -n: the queue's namespace (empty: the kubeconfig context's)
  LedgerFlags ledger;      // --run, --state-dir
  std::string name;
  // TPU shapes to queue for, as slice types ("v6e-16"); empty: every shape the cluster's nodes have.
  std::vector<std::string> tpu_types;
  std::optional<int64_t> chips;  // quota per shape; default: the chips of the shape's nodes
  bool flex_start = false;       // admit through GKE's queued provisioning (a ProvisioningRequest)
  std::string kueue_manifest;    // empty: the pinned release's URL; a file for air-gapped sites
  std::string timeout = "5m";    // how long Kueue's install may take, core::ParseDuration's; empty: 5m
  bool dry_run = false;
  // With flex_start and one --tpu-type: first create this GKE node pool in the --cluster,
  // flex-start with queued provisioning (0 nodes, autoscaled to the slice's hosts).
  std::string create_nodepool;

  // A usage error before any call: the queue's name and namespace, --chips, each --tpu-type,
  // what --create-nodepool needs, --timeout.
  core::Status Check() const;
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
  std::string run_id;       // the run the install and the queue's objects are recorded in
  bool dry_run = false;
};

// Checks the request, resolves the run (a ledger that cannot record refuses the command before
// any call), reaches the cluster, finds Kueue (refusing one that serves no v1beta2) or installs
// the pinned release (recorded), creates the --create-nodepool pool in the GKE cluster, reads the
// TPU shapes from the nodes, and applies the queue's objects, recorded in the run ledger.
core::Result<QueueCreateOutcome> CreateQueue(Root& root, const QueueCreateRequest& request);

// `queue delete NAME`.
struct QueueDeleteRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;  // the run that made the queue (default: the current one)
  std::string name;
  std::string timeout = "5m";  // for each deletion, core::ParseDuration's grammar; empty: 5m
  bool dry_run = false;
};

struct QueueDeleteOutcome {
  std::vector<k8s::DeleteResult> deleted;
  std::vector<std::string> kept;  // objects of the queue the run did not make, left alone
  std::string run_id;
};

// Deletes the queue's objects (its LocalQueue, ClusterQueue, flavors, checks) that the run
// recorded as its own; the Kueue install stays for `cleanup` (other queues may use it). The name
// and --timeout are checked before the cluster is reached.
core::Result<QueueDeleteOutcome> DeleteQueue(Root& root, const QueueDeleteRequest& request);

struct QueueSummary {
  std::string name;  // the LocalQueue
  std::string ns;
  k8s::kueue::ClusterQueueStatus cluster_queue;
  int64_t pending = 0;  // the LocalQueue's own counts
  int64_t admitted = 0;
};

// `queue list`: the LocalQueues of -n (every namespace with -A), each with its ClusterQueue's
// quota and checks. A usage error when Kueue is not served.
struct QueueListRequest {
  KubeAccessFlags access;
  bool all_namespaces = false;
};
core::Result<std::vector<QueueSummary>> ListQueues(Root& root, const QueueListRequest& request);

struct QueueDescription {
  QueueSummary summary;
  std::vector<nlohmann::json> flavors;                  // the ResourceFlavors' specs, by name
  std::vector<k8s::kueue::Condition> check_conditions;  // each admission check's Active condition
  std::vector<std::string> check_names;
  std::vector<k8s::kueue::WorkloadStatus> workloads;
};
// `queue describe NAME`.
struct QueueDescribeRequest {
  KubeAccessFlags access;
  std::string name;
};
core::Result<QueueDescription> DescribeQueue(Root& root, const QueueDescribeRequest& request);

struct ProvisioningRequestStatus {
  std::string name;
  std::vector<k8s::kueue::Condition> conditions;
};

struct WorkloadReport {
  k8s::kueue::WorkloadStatus workload;
  std::optional<k8s::kueue::ClusterQueueStatus> cluster_queue;
  std::vector<ProvisioningRequestStatus> provisioning;
};

// `queue status [WORKLOAD]`: the workloads of -n (in LocalQueue `queue` when given; only those
// matching `workload` when given: "KIND/NAME" of the object, or the Workload's name), with
// positions counted over their ClusterQueue (all namespaces when readable), their ClusterQueue's
// quota, and the conditions of the ProvisioningRequests Kueue made for them. NotFound when
// `workload` matches none.
struct QueueStatusRequest {
  KubeAccessFlags access;
  std::string workload;
  std::string queue;
};
core::Result<std::vector<WorkloadReport>> QueueStatus(Root& root, const QueueStatusRequest& request);

// `queue wait WORKLOAD`: polls its status until it is admitted (or finished), reporting each
// change. On timeout, DeadlineExceeded with the last status (position, Kueue's message, the
// checks).
struct QueueWaitRequest {
  KubeAccessFlags access;
  std::string workload;
  std::string until = "admitted";  // --for: admitted or finished
  std::string timeout = "30m";     // core::ParseDuration's grammar; empty: 30m

  // A usage error before any call: --for, then --timeout.
  core::Status Check() const;
};
core::Result<WorkloadReport> WaitQueued(Root& root, const QueueWaitRequest& request);

// One line on why a workload waits, or that it runs: "pending: position 2 in cluster queue q;
// google.com/tpu 16/16 in flavor ...; Kueue: couldn't assign flavors ...; check x: Pending ...".
std::string WorkloadLine(const WorkloadReport& report);

// The queue commands' --format json|yaml, their contract: what queue create made (each object's
// action as a --dry-run names it), what queue delete removed and kept, the list, a description
// (its workloads as WorkloadReports), and one workload's report with its WorkloadLine.
nlohmann::json ToJson(const QueueCreateOutcome& created);
nlohmann::json ToJson(const QueueDeleteOutcome& deleted);
nlohmann::json ToJson(const std::vector<QueueSummary>& queues);
nlohmann::json ToJson(const QueueDescription& description);
nlohmann::json ToJson(const WorkloadReport& report);
nlohmann::json ToJson(const std::vector<WorkloadReport>& reports);

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
