#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"

// Kueue's objects for TPU queues, in kueue.x-k8s.io/v1beta2 only (served since Kueue 0.15; 0.20
// serves nothing older): a ResourceFlavor per TPU shape, a ClusterQueue with the chips as quota,
// a LocalQueue in the namespace, and for GKE's flex-start with queued provisioning a
// ProvisioningRequestConfig and an AdmissionCheck per shape. And the workload side: the queue
// label, and what a ProvisioningRequest needs on the pods.
namespace tputrain::k8s::kueue {

inline constexpr std::string_view kApiVersion = "kueue.x-k8s.io/v1beta2";
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kMaxRunDurationAnnotation = "provreq.kueue.x-k8s.io/maxRunDurationSeconds";
inline constexpr std::string_view kProvisioningController = "kueue.x-k8s.io/provisioning-request";
inline constexpr std::string_view kQueuedProvisioningClass = "queued-provisioning.gke.io";
// GKE's label and taint on the nodes of a queued-provisioning pool.
inline constexpr std::string_view kQueuedNodeLabel = "cloud.google.com/gke-queued";
inline constexpr std::string_view kTpuResource = "google.com/tpu";

// One TPU shape of the cluster's pools, as GKE labels its nodes.
struct TpuShape {
  std::string accelerator;  // cloud.google.com/gke-tpu-accelerator
  std::string topology;     // cloud.google.com/gke-tpu-topology
  int64_t chips = 0;        // google.com/tpu on the pools' nodes (the queue's quota for it)
  int nodes = 0;
};

// The TPU shapes of the Nodes in a NodeList: nodes grouped by accelerator and topology, each
// shape's chips the sum of its nodes' allocatable google.com/tpu. Sorted by accelerator, topology.
std::vector<TpuShape> TpuShapesOfNodes(const nlohmann::json& node_list);

struct QueueSpec {
  std::string name;  // the ClusterQueue's and the LocalQueue's
  std::string ns;    // the LocalQueue's
  std::vector<TpuShape> shapes;
  // GKE's flex-start with queued provisioning: each shape's flavor is admitted through a
  // ProvisioningRequest (an AdmissionCheck of Kueue's provisioning controller).
  bool provisioning = false;
};

// Names of the queue's objects. Each is the queue's own, so that deleting one queue never takes
// a flavor or check another queue uses: "<queue>-<accelerator>-<topology>", "<queue>-cpu",
// "<flavor>-dws".
std::string FlavorName(const std::string& queue, const TpuShape& shape);
std::string CpuFlavorName(const std::string& queue);
std::string AdmissionCheckName(const std::string& flavor);

// A usage error naming `flag` when `name` cannot name a queue: a DNS label short enough that
// its flavor and check names stay within 253 characters (kept to 40).
core::Status ValidateQueueName(std::string_view flag, const std::string& name);

// The queue's objects in apply order: the ResourceFlavors (TPU shapes with their node labels and
// the TPU toleration; one without labels for CPU and memory, so that CPU pods such as a Ray
// head are not sent to TPU nodes), each shape's ProvisioningRequestConfig and AdmissionCheck
// when provisioning, the ClusterQueue (google.com/tpu quota per flavor; CPU and memory
// unlimited), the LocalQueue.
std::vector<Object> RenderQueue(const QueueSpec& spec);

// What a workload needs to wait in a queue.
struct QueueLabelling {
  std::string queue;  // the LocalQueue
  // The queue admits through a ProvisioningRequest: the run's longest duration as the request's
  // annotation, and TPU pods select and tolerate GKE's queued-provisioning nodes.
  bool provisioning = false;
  std::chrono::seconds max_run_duration{std::chrono::hours(24 * 7)};
};

// The kinds Kueue admits that tputrain makes: RayCluster, RayJob, LeaderWorkerSet, JobSet, Job.
bool IsQueueableKind(std::string_view api_version, std::string_view kind);

// Labels each queueable object of `objects` for the queue (and, with provisioning, adds the
// annotation to it and GKE's queued-provisioning node selector and toleration to every pod
// template that selects TPU nodes). A usage error naming `flag` when none is queueable. Returns
// how many objects it labelled.
core::Result<int> LabelForQueue(std::vector<Object>& objects, const QueueLabelling& labelling,
                                std::string_view flag = "--queue");

}  // namespace tputrain::k8s::kueue
