#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/queue.h"

// The queue flows on a cluster reached already; queue_flow.cc reaches it for the commands'
// requests.
namespace tputrain::workflow {

// What queue create works with: the cluster, the run ledger, and where a release manifest is
// fetched from.
struct QueueEnv : RecordedApplyEnv {
  http::Transport& downloads;
  // Creates node pools in the GKE cluster (ledgered); empty when the cluster is not a GKE one.
  std::function<core::Status(const std::vector<gcp::container::NodePoolSpec>&)> create_pools;
};

// The request checked already (QueueCreateRequest::Check): Kueue found or installed (within
// `install_timeout`), the pool made, the shapes read, the queue's objects applied and recorded.
core::Result<QueueCreateOutcome> CreateQueue(QueueEnv& env, const QueueCreateRequest& request,
                                             std::chrono::milliseconds install_timeout);

core::Result<QueueDeleteOutcome> DeleteQueue(RecordedDeleteEnv& env, const std::string& name, const std::string& ns,
                                             std::chrono::milliseconds timeout, bool dry_run);

core::Result<std::vector<QueueSummary>> ListQueues(k8s::Client& client, k8s::Discovery& discovery,
                                                   const std::string& ns, bool all_namespaces);

core::Result<QueueDescription> DescribeQueue(k8s::Client& client, k8s::Discovery& discovery, const std::string& name,
                                             const std::string& ns);

core::Result<std::vector<WorkloadReport>> QueueStatus(k8s::Client& client, k8s::Discovery& discovery,
                                                      const std::string& ns, const std::string& queue,
                                                      const std::string& workload);

enum class QueueWaitFor { kAdmitted, kFinished };

core::Result<WorkloadReport> WaitQueued(const core::Runtime& runtime, k8s::Client& client, k8s::Discovery& discovery,
                                        const std::string& ns, const std::string& workload, QueueWaitFor until,
                                        std::chrono::milliseconds timeout);

}  // namespace tputrain::workflow
