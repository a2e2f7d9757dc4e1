#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/k8s/watch.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/submit.h"

// `tputrain submit` on a Kubernetes cluster: the RayCluster for the job's slice is rendered from
// a built-in template, applied (server-side), waited for with a watch, and its head reached
// through the API server's service proxy, where the MaxText job is submitted and followed.
namespace tputrain::workflow {

inline constexpr std::string_view kTpuRayClusterTemplate = "raycluster-maxtext";
inline constexpr std::string_view kCpuRayClusterTemplate = "raycluster-cpu";

struct RayClusterRequest {
  std::string name;           // empty: DefaultRayClusterName
  std::string ns;             // empty: the kubeconfig context's namespace
  std::string template_name;  // empty: raycluster-maxtext (TPU presets) or raycluster-cpu (CPU presets)
  std::vector<std::string> template_dirs;
  std::string image;                                 // DOCKER_IMAGE
  std::vector<std::string> sets;                     // the template's NAME=VALUE
  std::vector<std::string> values_files;             // YAML values files, below `sets`
  std::map<std::string, std::string> configuration;  // PROJECT_ID, BUCKET, ...
  std::chrono::milliseconds ready_timeout{std::chrono::minutes(20)};
  // Which TPU pools the pods select: Spot and flex-start pools by GKE's node labels.
  CapacityMode capacity = CapacityMode::kOnDemand;
  // --queue: the Kueue LocalQueue the RayCluster waits in (empty: none); Kueue keeps it suspended
  // until the queue admits it.
  std::string queue;
};

// Stable across submits of the same model and slice, so a second submit finds the cluster
// the first one made: "<model>-<tpu type>" ("llama3-8b-v6e-16"), or "<model>" for CPU presets,
// lowercased to a DNS label of at most 53 characters (KubeRay's limit).
std::string DefaultRayClusterName(const MaxTextJob& job);

// The template's objects for `job` (TPU_TYPE and NUM_SLICES from the job's slice), checked:
// exactly one RayCluster, named as asked, a valid KubeRay name, TPU requests only for TPU jobs.
// Sends nothing.
struct RenderedRayCluster {
  std::string name;
  std::string template_name;
  std::vector<k8s::Object> objects;  // in apply order
};
core::Result<RenderedRayCluster> RenderRayCluster(const MaxTextJob& job, const RayClusterRequest& request);

// Builds the Ray Jobs client for the head behind the proxy (the CLI adds Ray's own headers
// and the transport that trusts the cluster's CA).
using RayClientFactory = std::function<core::Result<std::unique_ptr<ray::JobsClient>>(const k8s::ProxyEndpoint&)>;

struct ClusterSubmitEnv : core::Runtime {
  k8s::Client& client;
  k8s::Discovery& discovery;
  state::AccessRecord access;  // how cleanup reaches this cluster again
  LedgerRecorder ledger;
  RayClientFactory make_ray_client;
};

struct AppliedObject {
  k8s::Object object;
  k8s::ApplyAction action = k8s::ApplyAction::kCreated;
  std::string resource_version;
};

struct ClusterSubmitOutcome {
  std::string raycluster;
  std::string ns;
  std::vector<AppliedObject> applied;
  SubmitOutcome submit;
};

// Renders, applies (recording each object in the ledger first), waits until the RayCluster is
// ready, then submits `job` through the proxy (recorded likewise) and, with `wait`, follows it.
// A cluster that is already there and ready is applied unchanged and reused.
core::Result<ClusterSubmitOutcome> SubmitOnCluster(ClusterSubmitEnv& env, const MaxTextJob& job,
                                                   const RayClusterRequest& request, bool wait,
                                                   const FollowFunction& follow, const SubmitCallbacks& callbacks);

// What --dry-run prints: each apply as it would be sent (method, URL, content type, body),
// the wait, then the job's requests through the proxy. Only discovery reads are sent.
core::Result<nlohmann::json> PlanOnCluster(k8s::Client& client, k8s::Discovery& discovery, const MaxTextJob& job,
                                           const RayClusterRequest& request);

// Submits with the job's ledger entry written before the request is sent and marked created
// once Ray accepted it. `target` says where, for cleanup (ledger_entries.h).
core::Result<SubmitOutcome> SubmitRecorded(ray::JobsClient& client, const MaxTextJob& job, const RayJobTarget& target,
                                           const LedgerRecorder& ledger, bool wait, const FollowFunction& follow,
                                           const SubmitCallbacks& callbacks);

}  // namespace tputrain::workflow
