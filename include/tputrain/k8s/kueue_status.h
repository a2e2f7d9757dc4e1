#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// Reading Kueue's status: why a workload waits (its queue position, Kueue's own message naming
// the quota it lacks, its admission checks), a ClusterQueue's quota used and nominal, and the
// conditions of a ProvisioningRequest (GKE's autoscaler's answer for flex-start capacity).
namespace tputrain::k8s::kueue {

struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string since;  // lastTransitionTime
};

// An admission check's state on a workload: Pending, Ready, Retry or Rejected, with its message.
struct CheckState {
  std::string name;
  std::string state;
  std::string message;
  int64_t retry_count = 0;
};

enum class WorkloadPhase {
  kPending,        // no quota reserved yet: waiting in the queue
  kQuotaReserved,  // quota reserved, admission checks not all ready
  kAdmitted,       // admitted: its pods may run
  kFinished,
};
std::string_view WorkloadPhaseName(WorkloadPhase phase);  // "pending", "quota reserved", "admitted", "finished"

struct WorkloadStatus {
  std::string name;  // the Workload's
  std::string ns;
  std::string owner_kind;  // the object Kueue made it for: "JobSet", "RayJob", "LeaderWorkerSet"...
  std::string owner_name;
  std::string queue;          // spec.queueName: the LocalQueue
  std::string cluster_queue;  // status.admission.clusterQueue, or the LocalQueue's (filled by the caller)
  int64_t priority = 0;
  std::string queued_since;  // when it (re)joined the queue: its creation, or its last eviction
  WorkloadPhase phase = WorkloadPhase::kPending;
  std::string message;               // Kueue's words on it: why it waits (QuotaReserved=False), or how it finished
  std::vector<std::string> flavors;  // assigned, once quota is reserved
  std::vector<CheckState> checks;
  std::vector<Condition> conditions;
  int position = 0;  // 1-based place among the ClusterQueue's pending workloads; 0 when not pending
};

// One Workload as the API server sends it.
WorkloadStatus ParseWorkload(const nlohmann::json& workload);

// Numbers each pending workload's place in its ClusterQueue as Kueue's BestEffortFIFO and
// StrictFIFO order it: higher priority first, then the earlier time it joined the queue.
void AssignPositions(std::vector<WorkloadStatus>& workloads);

// One resource of one flavor in a ClusterQueue: nominal quota, and what admitted and reserving
// workloads hold (quantities as the API writes them: "16", "100m").
struct FlavorQuota {
  std::string flavor;
  std::string resource;
  std::string nominal;
  std::string reserved = "0";
};

struct ClusterQueueStatus {
  std::string name;
  std::vector<FlavorQuota> quota;
  std::vector<std::string> checks;  // the admission checks it applies
  int64_t pending = 0;
  int64_t reserving = 0;
  int64_t admitted = 0;
  bool active = false;
  std::string inactive_message;  // why it is not active (a missing flavor or check)
};

ClusterQueueStatus ParseClusterQueue(const nlohmann::json& cluster_queue);

// The conditions of a ProvisioningRequest (autoscaling.x-k8s.io): Accepted, Provisioned, Failed,
// BookingExpired, CapacityRevoked.
std::vector<Condition> ConditionsOf(const nlohmann::json& object);

}  // namespace tputrain::k8s::kueue
