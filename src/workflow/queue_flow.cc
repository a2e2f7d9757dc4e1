// The queue commands' requests: checked before any call, then the cluster reached (and the run
// resolved first where the command records), then the flow on it (queue_create.cc,
// queue_status.cc).
#include "pool_creator.h"
#include "queue_cluster.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/gcp/names.h"
#include "tputrain/k8s/names.h"

namespace tputrain::workflow {
namespace {

// --timeout as typed; empty: the verb's default.
core::Result<std::chrono::milliseconds> TimeoutOf(const std::string& text, std::chrono::milliseconds fallback) {
  auto timeout = core::ParseOptionalDuration("--timeout", text);
  if (!timeout) return core::Fail(timeout.error());
  return timeout->value_or(fallback);
}

core::Result<QueueWaitFor> WaitForOf(const std::string& until) {
  if (until == "admitted") return QueueWaitFor::kAdmitted;
  if (until == "finished") return QueueWaitFor::kFinished;
  return core::Fail(core::Error::Usage("--for: expected admitted or finished, got '" + until + "'"));
}

}  // namespace

core::Status QueueCreateRequest::Check() const {
  if (auto parsed = TimeoutOf(timeout, std::chrono::minutes(5)); !parsed) return core::Fail(parsed.error());
  if (auto valid = k8s::kueue::ValidateQueueName("queue", name); !valid) return core::Fail(valid.error());
  if (!access.ns.empty()) {
    if (auto valid = k8s::CheckNamespace("--namespace", access.ns); !valid) return core::Fail(valid.error());
  }
  if (chips && (*chips <= 0 || *chips > 1'000'000)) {
    return core::Fail(
        core::Error::Usage("--chips: expected a number of TPU chips from 1 to 1000000, got " + std::to_string(*chips)));
  }
  for (const auto& type : tpu_types) {
    if (auto slice = catalog::FindSliceType(type); !slice) {
      return core::Fail(core::Error::Usage("--tpu-type: " + slice.error().message));
    }
  }
  if (create_nodepool.empty()) return {};
  if (!flex_start || tpu_types.size() != 1) {
    return core::Fail(core::Error::Usage("--create-nodepool: needs --flex-start and one --tpu-type (the slice)"));
  }
  // The pool goes into a GKE cluster named by --cluster; a kubeconfig's cluster has no such name.
  if (access.gke_cluster.empty()) {
    return core::Fail(core::Error::Usage("--create-nodepool: needs --cluster (the GKE cluster to add the pool to)"));
  }
  return gcp::CheckResourceId("--create-nodepool", create_nodepool, gcp::kGkeNameLength);
}

core::Result<QueueCreateOutcome> CreateQueue(Root& root, const QueueCreateRequest& request) {
  if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
  auto timeout = TimeoutOf(request.timeout, std::chrono::minutes(5));
  if (!timeout) return core::Fail(timeout.error());
  // The run first: a ledger that cannot record refuses the command before any call.
  auto cluster = OpenRecordedApply(root, request.access, request.ledger, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  QueueEnv env{(*cluster)->env, root.Downloads(), PoolCreatorFor(root, request.access, (*cluster)->ledger)};
  auto created = CreateQueue(env, request, *timeout);
  if (!created) return core::Fail(created.error());
  created->run_id = (*cluster)->ledger.run_id;
  created->dry_run = request.dry_run;
  return created;
}

core::Result<QueueDeleteOutcome> DeleteQueue(Root& root, const QueueDeleteRequest& request) {
  auto timeout = TimeoutOf(request.timeout, std::chrono::minutes(5));
  if (!timeout) return core::Fail(timeout.error());
  if (auto valid = k8s::kueue::ValidateQueueName("queue", request.name); !valid) return core::Fail(valid.error());
  auto cluster = OpenRecordedDelete(root, request.access, request.ledger);
  if (!cluster) return core::Fail(cluster.error());
  auto deleted = DeleteQueue((*cluster)->env, request.name, request.access.ns, *timeout, request.dry_run);
  if (!deleted) return core::Fail(deleted.error());
  deleted->run_id = (*cluster)->env.run_id;
  return deleted;
}

core::Result<std::vector<QueueSummary>> ListQueues(Root& root, const QueueListRequest& request) {
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  return ListQueues(*(*connection)->client, *(*connection)->discovery, request.access.ns, request.all_namespaces);
}

core::Result<QueueDescription> DescribeQueue(Root& root, const QueueDescribeRequest& request) {
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  return DescribeQueue(*(*connection)->client, *(*connection)->discovery, request.name, request.access.ns);
}

core::Result<std::vector<WorkloadReport>> QueueStatus(Root& root, const QueueStatusRequest& request) {
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  return QueueStatus(*(*connection)->client, *(*connection)->discovery, request.access.ns, request.queue,
                     request.workload);
}

core::Status QueueWaitRequest::Check() const {
  if (auto wanted = WaitForOf(until); !wanted) return core::Fail(wanted.error());
  if (auto parsed = TimeoutOf(timeout, std::chrono::minutes(30)); !parsed) return core::Fail(parsed.error());
  return {};
}

core::Result<WorkloadReport> WaitQueued(Root& root, const QueueWaitRequest& request) {
  auto until = WaitForOf(request.until);
  if (!until) return core::Fail(until.error());
  auto timeout = TimeoutOf(request.timeout, std::chrono::minutes(30));
  if (!timeout) return core::Fail(timeout.error());
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  return WaitQueued(root.runtime(), *(*connection)->client, *(*connection)->discovery, request.access.ns,
                    request.workload, *until, *timeout);
}

}  // namespace tputrain::workflow
