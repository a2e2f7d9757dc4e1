#include <algorithm>

#include "tputrain/k8s/wait.h"
#include "tputrain/workflow/submit_cluster.h"

namespace tputrain::workflow {
namespace {

constexpr std::string_view kApplyContentType = "application/apply-patch+yaml";
// A head that is ready by KubeRay's account may still refuse the proxy for a moment (its
// Endpoints lag the pod); the dashboard is probed this long before submitting.
constexpr std::chrono::seconds kHeadProbeTimeout{120};

struct Resolved {
  k8s::Object object;  // with its namespace filled in, as Apply sends it
  std::string path;    // the object's path on the API server
};

// The namespace and path of each object, as k8s::Apply will resolve them.
core::Result<std::vector<Resolved>> Resolve(k8s::Client& client, k8s::Discovery& discovery,
                                            std::vector<k8s::Object> objects, const std::string& ns) {
  std::vector<Resolved> resolved;
  for (auto& object : objects) {
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (!info) {
      auto error = info.error();
      error.message = object.source + ": " + error.message;
      return core::Fail(error);
    }
    if (info->namespaced) {
      auto object_ns = k8s::NamespaceFor(object, ns, client.default_namespace());
      if (!object_ns) return core::Fail(object_ns.error());
      object.ns = *object_ns;
      object.json["metadata"]["namespace"] = object.ns;
    } else {
      object.ns.clear();
      object.json["metadata"].erase("namespace");
    }
    std::string path = info->ObjectPath(object.ns, object.name);
    resolved.push_back({std::move(object), std::move(path)});
  }
  return resolved;
}

const k8s::Object& RayClusterOf(const std::vector<Resolved>& resolved) {
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
  auto deadline = deps.clock.Now() + kHeadProbeTimeout;
  std::chrono::milliseconds delay{250};
  while (true) {
    auto version = client.Version();
    if (version) return {};
    const auto& error = version.error();
    bool transient = error.kind == core::ErrorKind::kUnavailable || error.http_status == 502 ||
                     error.http_status == 503 || error.http_status == 504;
    if (!transient || deps.clock.Now() + delay > deadline) {
      auto failed = error;
      failed.message = "the Ray dashboard of " + what + " does not answer through the API server's proxy: " +
                       error.message;
      return core::Fail(failed);
    }
    if (!deps.sleeper.Sleep(delay)) return core::Fail(core::Error::Make(core::ErrorKind::kCancelled, "interrupted"));
    delay = std::min(delay * 2, std::chrono::milliseconds(4000));
  }
}

}  // namespace

core::Result<nlohmann::json> PlanOnCluster(k8s::Client& client, k8s::Discovery& discovery, const MaxTextJob& job,
                                           const RayClusterRequest& request) {
  auto rendered = RenderRayCluster(job, request);
  if (!rendered) return core::Fail(rendered.error());
  auto resolved = Resolve(client, discovery, rendered->objects, request.ns);
  if (!resolved) return core::Fail(resolved.error());
  const k8s::Object& cluster = RayClusterOf(*resolved);

  nlohmann::json applies = nlohmann::json::array();
  for (const auto& item : *resolved) {
    applies.push_back({{"method", "PATCH"},
                       {"url", WithoutTrailingSlash(client.server()) + item.path + "?fieldManager=tputrain"},
                       {"content_type", kApplyContentType},
                       {"body", item.object.json}});
  }
  std::string base = WithoutTrailingSlash(k8s::ServiceProxyUrl(client.server(), cluster.ns, cluster.name + "-head-svc", "8265"));
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
      {"wait", {{"kind", cluster.kind}, {"namespace", cluster.ns}, {"name", cluster.name}, {"until", "status.state == ready"}}},
      {"job", description},
      {"job_requests", job_requests},
  };
}

core::Result<ClusterSubmitOutcome> SubmitOnCluster(ClusterSubmitEnv& env, const MaxTextJob& job,
                                                   const RayClusterRequest& request, bool wait,
                                                   const FollowFunction& follow, const SubmitCallbacks& callbacks) {
  auto rendered = RenderRayCluster(job, request);
  if (!rendered) return core::Fail(rendered.error());
  auto resolved = Resolve(env.client, env.discovery, rendered->objects, request.ns);
  if (!resolved) return core::Fail(resolved.error());
  const k8s::Object cluster = RayClusterOf(*resolved);
  const std::string what = "RayCluster " + cluster.ns + "/" + cluster.name;

  // Each object goes into the ledger before it is sent. One that is already there and not in
  // this run's ledger was made by someone else (or another run): recorded, but not owned.
  std::vector<k8s::Object> objects;
  for (const auto& item : *resolved) {
    auto existing = env.client.Send("GET", item.path);
    if (!existing) return core::Fail(existing.error());
    if (!existing->ok() && existing->status != 404) {
      return core::Fail(k8s::ErrorFromStatus(existing->status, existing->body, item.object.Describe()));
    }
    if (auto recorded = env.ledger.Creating(K8sObjectEntry(env.access, item.object, existing->status == 404)); !recorded) {
      return core::Fail(recorded.error());
    }
    objects.push_back(item.object);
  }

  ClusterSubmitOutcome outcome;
  outcome.raycluster = cluster.name;
  outcome.ns = cluster.ns;
  env.reporter.Progress("raycluster", "applying " + what);
  k8s::ApplyOptions apply_options;
  apply_options.ns = cluster.ns;
  core::Status recorded;
  auto applied = k8s::Apply(env.client, env.discovery, std::move(objects), apply_options, env.watch,
                            [&](const k8s::ApplyResult& result) {
                              auto status = env.ledger.Created(K8sObjectEntry(env.access, result.object, true));
                              if (!status && recorded) recorded = status;
                              outcome.applied.push_back({result.object, result.action, result.resource_version});
                              env.reporter.Info(result.object.Describe() + " " +
                                                std::string(k8s::ApplyActionName(result.action, false)));
                            });
  if (!applied) return core::Fail(applied.error());
  if (!recorded) return core::Fail(recorded.error());

  env.reporter.Progress("raycluster", "waiting for " + what + " to be ready");
  k8s::WatchOptions watch_options;
  watch_options.timeout = request.ready_timeout;
  auto ready = k8s::WaitReady(env.client, env.discovery, {cluster.api_version, cluster.kind, cluster.name}, cluster.ns,
                              watch_options, env.watch);
  if (!ready) return core::Fail(ready.error());
  env.reporter.Done("raycluster", what + " ready");

  auto endpoint = k8s::RayHeadEndpoint(env.client, cluster.ns, cluster.name);
  if (!endpoint) return core::Fail(endpoint.error());
  auto ray_client = env.make_ray_client(*endpoint);
  if (!ray_client) return core::Fail(ray_client.error());
  if (auto probed = ProbeHead(**ray_client, env.watch, what); !probed) return core::Fail(probed.error());

  nlohmann::json details = {{"raycluster", cluster.name}, {"namespace", cluster.ns}, {"access", env.access}};
  auto submitted = SubmitRecorded(**ray_client, job, details, env.ledger, wait, follow, callbacks);
  if (!submitted) return core::Fail(submitted.error());
  outcome.submit = std::move(*submitted);
  return outcome;
}

core::Result<SubmitOutcome> SubmitRecorded(ray::JobsClient& client, const MaxTextJob& job,
                                           const nlohmann::json& details, const LedgerRecorder& ledger, bool wait,
                                           const FollowFunction& follow, const SubmitCallbacks& callbacks) {
  MaxTextJob with_id = job;
  // The id is fixed before anything is sent, so the ledger can name the job first.
  if (with_id.request.submission_id.empty()) with_id.request.submission_id = client.options().make_submission_id();
  auto entry = RayJobEntry(with_id.request.submission_id, details);
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
