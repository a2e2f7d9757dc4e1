#include "tputrain/workflow/operators.h"

#include <fstream>
#include <sstream>

#include "tputrain/core/file.h"
#include "tputrain/k8s/wait.h"

namespace tputrain::workflow {

const std::vector<OperatorInfo>& KnownOperators() {
  static const std::vector<OperatorInfo> operators = {
      {"kuberay", "ray.io/v1", "RayCluster", "", "",
       "enable the GKE Ray add-on: tputrain cluster create ... --ray-operator, or gcloud container clusters update "
       "CLUSTER --location LOCATION --update-addons=RayOperator=ENABLED"},
      {"lws", "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "v0.10.0",
       "https://github.com/kubernetes-sigs/lws/releases/download/v0.10.0/manifests.yaml",
       "tputrain operators install lws"},
      {"jobset", "jobset.x-k8s.io/v1alpha2", "JobSet", "v0.12.0",
       "https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/manifests.yaml",
       "tputrain operators install jobset"},
  };
  return operators;
}

core::Result<OperatorInfo> FindOperator(const std::string& name) {
  std::string known;
  for (const auto& info : KnownOperators()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  return core::Fail(core::Error::Usage("operator: expected one of " + known + ", got '" + name + "'"));
}

core::Result<std::vector<OperatorStatus>> CheckOperators(k8s::Client& client, k8s::Discovery& discovery,
                                                         const std::vector<OperatorInfo>& operators) {
  std::vector<OperatorStatus> statuses;
  for (const auto& info : operators) {
    auto found = discovery.Lookup(info.api_version, info.kind);
    // Discovery answers an unserved kind with FAILED_PRECONDITION; anything else is a real failure.
    if (!found && found.error().kind != core::ErrorKind::kFailedPrecondition) return core::Fail(found.error());
    OperatorStatus status{info, found.has_value(), std::nullopt};
    if (status.installed && info.name == "kuberay") status.tpu_webhook = k8s::FindRayTpuWebhook(client);
    statuses.push_back(std::move(status));
  }
  return statuses;
}

std::string RayTpuWebhookLine(const k8s::RayTpuWebhook& webhook) {
  using Presence = k8s::RayTpuWebhook::Presence;
  switch (webhook.presence) {
    case Presence::kPresent:
      return "GKE's Ray TPU webhook is registered (MutatingWebhookConfiguration " + webhook.configuration +
             "): KubeRay's TPU pods get TPU_WORKER_HOSTNAMES, TPU_WORKER_ID and TPU_NAME, and each multi-host slice "
             "one node pool";
    case Presence::kAbsent:
      return "no Ray TPU webhook (a MutatingWebhookConfiguration for pods labelled app.kubernetes.io/name=kuberay, "
             "which GKE's Ray add-on installs): KubeRay's TPU pods get no TPU_WORKER_HOSTNAMES, TPU_WORKER_ID or "
             "TPU_NAME, which JAX needs to start across the hosts of a multi-host slice (raycluster-maxtext keeps "
             "each slice on one node pool itself); on GKE use the add-on: tputrain cluster create ... --ray-operator, "
             "or gcloud container clusters update CLUSTER --location LOCATION --update-addons=RayOperator=ENABLED";
    case Presence::kUnknown:
      break;
  }
  return "cannot tell whether GKE's Ray TPU webhook is registered: " + webhook.reason;
}

core::Result<std::vector<k8s::Object>> LoadOperatorManifest(http::Transport& transport, const std::string& source) {
  std::string text;
  if (source.rfind("https://", 0) == 0 || source.rfind("http://", 0) == 0) {
    http::Request request;
    request.url = source;
    request.idempotent = true;
    request.timeout = std::chrono::seconds(60);
    auto response = transport.Send(request);
    if (!response) return core::Fail(response.error());
    if (response->status != 200) {
      auto error = core::Error::Make(core::KindFromHttpStatus(response->status),
                                     "GET " + source + ": HTTP " + std::to_string(response->status));
      error.http_status = response->status;
      return core::Fail(error);
    }
    text = response->body;
  } else {
    std::string path = source.rfind("file://", 0) == 0 ? source.substr(7) : source;
    // Release manifests are hundreds of KiB (KubeRay's CRDs are the largest); 64 MiB is plenty.
    auto read = core::ReadFile(path, "--manifest", 64 * core::kMiB);
    if (!read) return core::Fail(read.error());
    text = std::move(*read);
  }
  auto objects = k8s::ParseManifests(text, source);
  if (!objects) return core::Fail(objects.error());
  if (objects->empty()) return core::Fail(core::Error::Usage("--manifest: " + source + " holds no objects"));
  return objects;
}

core::Result<OperatorInstall> InstallOperator(RecordedApplyEnv& env, const OperatorInfo& info,
                                              const std::vector<k8s::Object>& objects, bool dry_run,
                                              std::chrono::milliseconds timeout, core::Reporter& reporter) {
  if (info.manifest_url.empty()) {
    return core::Fail(core::Error::Usage(info.name + ": not installed from a manifest; " + info.fix));
  }
  OperatorInstall install;
  k8s::ApplyOptions options;
  options.dry_run = dry_run;
  reporter.Progress("operator " + info.name, "applying " + std::to_string(objects.size()) + " objects");
  auto applied = ApplyRecorded(env, objects, options, [&](const k8s::ApplyResult& result) {
    reporter.Info(result.object.Describe() + " " + std::string(k8s::ApplyActionName(result.action, dry_run)));
  });
  if (!applied) return core::Fail(applied.error());
  install.applied = std::move(*applied);
  if (dry_run) return install;
  for (const auto& result : install.applied) {
    if (result.object.kind != "Deployment") continue;
    const std::string what = result.object.ns + "/" + result.object.name;
    reporter.Progress("operator " + info.name, "waiting for Deployment " + what + " to be available");
    k8s::WatchOptions watch;
    watch.timeout = timeout;
    auto ready = k8s::WaitReady(env.client, env.discovery, {"apps/v1", "Deployment", result.object.name},
                                result.object.ns, watch, env);
    if (!ready) return core::Fail(ready.error());
    install.ready.push_back(what);
  }
  reporter.Done("operator " + info.name, info.version + " installed");
  return install;
}

}  // namespace tputrain::workflow
