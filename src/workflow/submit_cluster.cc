#include <algorithm>
#include <limits>

#include "tputrain/core/poll.h"
#include "tputrain/k8s/ray_tpu_webhook.h"
#include "tputrain/k8s/wait.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/operators.h"
#include "tputrain/workflow/queue.h"
#include "tputrain/workflow/submit_cluster.h"

namespace tputrain::workflow {
namespace {

constexpr std::string_view kApplyContentType = "application/apply-patch+yaml";
// A head that is ready by KubeRay's account may still refuse the proxy for a moment (its
// Endpoints lag the pod); the dashboard is probed this long before submitting.
constexpr std::chrono::seconds kHeadProbeTimeout{120};

const k8s::Object& RayClusterOf(const std::vector<ResolvedObject>& resolved) {
  for (const auto& item : resolved) {
    if (item.object.kind == "RayCluster") return item.object;
  }
  return resolved.front().object;  // RenderRayCluster guarantees one
}

std::string WithoutTrailingSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The dashboard answers through the proxy (GET /api/version), retried with backoff while the
// proxy says the backend is unavailable.
core::Status ProbeHead(ray::JobsClient& client, k8s::WatchDeps deps, const std::string& what) {
  core::PollOptions options{std::chrono::milliseconds(250), 2.0, std::chrono::milliseconds(4000), kHeadProbeTimeout};
  options.is_transient = [](const core::Error& error) {
    return error.kind == core::ErrorKind::kUnavailable || error.http_status == 502 || error.http_status == 503 ||
           error.http_status == 504;
  };
  options.transient_failures = std::numeric_limits<int>::max();
  options.on_timeout = core::OnTimeout::kLastError;
  auto answered = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto version = client.Version();
        if (!version) return core::Fail(version.error());
        return true;
      },
      options, {deps.clock, deps.sleeper, nullptr});
  if (answered || answered.error().kind == core::ErrorKind::kCancelled) return answered;
  auto failed = answered.error();
  failed.message =
      "the Ray dashboard of " + what + " does not answer through the API server's proxy: " + failed.message;
  return core::Fail(failed);
}

}  // namespace

core::Result<nlohmann::json> PlanOnCluster(k8s::Client& client, k8s::Discovery& discovery, const MaxTextJob& job,
                                           const RayClusterRequest& request) {
  auto rendered = RenderRayCluster(job, request);
  if (!rendered) return core::Fail(rendered.error());
  if (auto queued = PrepareForQueue(client, request.queue, request.ns, rendered->objects); !queued) {
    return core::Fail(queued.error());
  }
  auto resolved = ResolveObjects(client, discovery, rendered->objects, request.ns);
  if (!resolved) return core::Fail(resolved.error());
  const k8s::Object& cluster = RayClusterOf(*resolved);

  nlohmann::json applies = nlohmann::json::array();
  for (const auto& item : *resolved) {
    applies.push_back({{"method", "PATCH"},
                       {"url", WithoutTrailingSlash(client.server()) + item.path + "?fieldManager=tputrain"},
                       {"content_type", kApplyContentType},
                       {"body", item.object.json}});
  }
  std::string base =
      WithoutTrailingSlash(k8s::ServiceProxyUrl(client.server(), cluster.ns, cluster.name + "-head-svc", "8265"));
  nlohmann::json description = DescribeJob(job);
  nlohmann::json job_requests = nlohmann::json::array();
  for (const auto& ray_request : description["requests"]) {
    nlohmann::json sent = {{"method", ray_request["method"]}, {"url", base + ray_request["path"].get<std::string>()}};
    for (const auto& [key, value] : ray_request.items()) {
      if (key != "method" && key != "path") sent[key] = value;
    }
    job_requests.push_back(std::move(sent));
  }
  description.erase("requests");
  return nlohmann::json{
      {"raycluster", cluster.name},
      {"namespace", cluster.ns},
      {"template", rendered->template_name},
      {"applies", applies},
      {"wait",
       {{"kind", cluster.kind}, {"namespace", cluster.ns}, {"name", cluster.name}, {"until", "status.state == ready"}}},
      {"job", description},
      {"job_requests", job_requests},
  };
}

core::Result<ClusterSubmitOutcome> SubmitOnCluster(ClusterSubmitEnv& env, const MaxTextJob& job,
                                                   const RayClusterRequest& request, bool wait,
                                                   const FollowFunction& follow, const SubmitCallbacks& callbacks) {
  auto rendered = RenderRayCluster(job, request);
  if (!rendered) return core::Fail(rendered.error());
  if (auto queued = PrepareForQueue(env.client, request.queue, request.ns, rendered->objects); !queued) {
    return core::Fail(queued.error());
  }
  auto resolved = ResolveObjects(env.client, env.discovery, rendered->objects, request.ns);
  if (!resolved) return core::Fail(resolved.error());
  const k8s::Object cluster = RayClusterOf(*resolved);
  const std::string what = "RayCluster " + cluster.ns + "/" + cluster.name;

  ClusterSubmitOutcome outcome;
  outcome.raycluster = cluster.name;
  outcome.ns = cluster.ns;
  if (job.slice && job.slice->hosts > 1) {
    // Multi-host slices need what GKE's Ray TPU webhook gives their pods: say whether it is there.
    auto webhook = k8s::FindRayTpuWebhook(env.client);
    if (webhook.presence == k8s::RayTpuWebhook::Presence::kPresent) {
      env.reporter.Info(RayTpuWebhookLine(webhook));
    } else {
      env.reporter.Warn(RayTpuWebhookLine(webhook));
    }
  }
  env.reporter.Progress("raycluster", "applying " + what);
  k8s::ApplyOptions apply_options;
  apply_options.ns = cluster.ns;
  RecordedApplyEnv apply_env{env, env.client, env.discovery, env.access, env.ledger};
  auto applied = ApplyRecorded(apply_env, rendered->objects, apply_options, [&](const k8s::ApplyResult& result) {
    outcome.applied.push_back({result.object, result.action, result.resource_version});
    env.reporter.Info(result.object.Describe() + " " + std::string(k8s::ApplyActionName(result.action, false)));
  });
  if (!applied) return core::Fail(applied.error());

  // A flex-start pool has no nodes until the pods wait on it: say what is being waited for.
  const std::string capacity_hint = job.slice ? PendingCapacityHint(request.capacity, "--ready-timeout") : "";
  env.reporter.Progress("raycluster", capacity_hint.empty() ? "waiting for " + what + " to be ready" : capacity_hint);
  if (!request.queue.empty()) {
    env.reporter.Info(what + " waits in queue " + request.queue +
                      " until Kueue admits it: `tputrain queue status raycluster/" + cluster.name + " -n " +
                      cluster.ns + "` says why it waits");
  }
  k8s::WatchOptions watch_options;
  watch_options.timeout = request.ready_timeout;
  auto ready = k8s::WaitReady(env.client, env.discovery, {cluster.api_version, cluster.kind, cluster.name}, cluster.ns,
                              watch_options, env);
  if (!ready && !capacity_hint.empty() && ready.error().kind == core::ErrorKind::kDeadlineExceeded) {
    core::Error error = ready.error();
    error.message += "\n  " + NoCapacityNote(request.capacity);
    return core::Fail(error);
  }
  if (!ready) return core::Fail(ready.error());
  for (const auto& note : ready->notes) env.reporter.Warn(note);
  env.reporter.Done("raycluster", what + " ready");

  auto endpoint = k8s::RayHeadEndpoint(env.client, cluster.ns, cluster.name);
  if (!endpoint) return core::Fail(endpoint.error());
  auto ray_client = env.make_ray_client(*endpoint);
  if (!ray_client) return core::Fail(ray_client.error());
  if (auto probed = ProbeHead(**ray_client, env, what); !probed) return core::Fail(probed.error());

  auto submitted = SubmitRecorded(**ray_client, job, RayJobTarget::OnRayCluster(cluster.name, cluster.ns, env.access),
                                  env.ledger, wait, follow, callbacks);
  if (!submitted) return core::Fail(submitted.error());
  outcome.submit = std::move(*submitted);
  return outcome;
}

core::Result<SubmitOutcome> SubmitRecorded(ray::JobsClient& client, const MaxTextJob& job, const RayJobTarget& target,
                                           const LedgerRecorder& ledger, bool wait, const FollowFunction& follow,
                                           const SubmitCallbacks& callbacks) {
  MaxTextJob with_id = job;
  // The id is fixed before anything is sent, so the ledger can name the job first.
  if (with_id.request.submission_id.empty()) with_id.request.submission_id = client.options().make_submission_id();
  auto entry = RayJobEntry(with_id.request.submission_id, target);
  if (auto recorded = ledger.Creating(entry); !recorded) return core::Fail(recorded.error());
  core::Status created;
  SubmitCallbacks wrapped = callbacks;
  wrapped.on_submitted = [&](const std::string& id, bool reattached) {
    created = ledger.Created(entry);
    if (callbacks.on_submitted) callbacks.on_submitted(id, reattached);
  };
  auto outcome = SubmitMaxText(client, with_id, wait, follow, wrapped);
  if (!outcome) return core::Fail(outcome.error());
  if (!created) return core::Fail(created.error());
  return outcome;
}

}  // namespace tputrain::workflow
