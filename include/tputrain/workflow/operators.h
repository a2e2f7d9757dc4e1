#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/ray_tpu_webhook.h"
#include "tputrain/workflow/apply_recorded.h"

// The operators the seed workloads need on a cluster: KubeRay (RayCluster, through the GKE Ray
// add-on), LeaderWorkerSet (JetStream + Pathways) and JobSet (Saxml). The seeds install the last
// two by hand from their release manifests; tputrain installs them from pinned versions.
namespace tputrain::workflow {

struct OperatorInfo {
  std::string name;         // lws, jobset, kuberay: what the commands take
  std::string api_version;  // of the kind that shows it is installed
  std::string kind;
  std::string version;       // pinned release; empty for KubeRay (a GKE add-on)
  std::string manifest_url;  // the release manifest; empty for KubeRay
  std::string fix;           // how to install it when absent
};

const std::vector<OperatorInfo>& KnownOperators();
// A usage error naming the known operators when `name` is none of them.
core::Result<OperatorInfo> FindOperator(const std::string& name);

struct OperatorStatus {
  OperatorInfo info;
  bool installed = false;
  // KubeRay only, when installed: whether GKE's Ray TPU webhook is registered too.
  std::optional<k8s::RayTpuWebhook> tpu_webhook;
};
// Whether each operator's kind is served (its CRD is installed), from discovery; for an
// installed KubeRay, whether the TPU webhook is there (k8s::FindRayTpuWebhook).
core::Result<std::vector<OperatorStatus>> CheckOperators(k8s::Client& client, k8s::Discovery& discovery,
                                                         const std::vector<OperatorInfo>& operators);

// One line on what the TPU webhook's presence means for KubeRay's TPU pods: with it, the TPU
// environment and one node pool per slice; without it, no TPU_WORKER_HOSTNAMES/TPU_WORKER_ID/
// TPU_NAME and how to get it.
std::string RayTpuWebhookLine(const k8s::RayTpuWebhook& webhook);

// The manifest at `source`: an https:// (or loopback http://) URL fetched through `transport`,
// else a local file (air-gapped sites and tests). Parsed into objects.
core::Result<std::vector<k8s::Object>> LoadOperatorManifest(http::Transport& transport, const std::string& source);

struct OperatorInstall {
  std::vector<k8s::ApplyResult> applied;
  std::vector<std::string> ready;  // Deployments waited for ("lws-system/lws-controller-manager")
};

// Applies the operator's manifest (recorded in the run ledger; CRDs first and waited until
// Established), then waits with a watch until each of its Deployments is available.
core::Result<OperatorInstall> InstallOperator(RecordedApplyEnv& env, const OperatorInfo& info,
                                              const std::vector<k8s::Object>& objects, bool dry_run,
                                              std::chrono::milliseconds timeout, core::Reporter& reporter);

}  // namespace tputrain::workflow
