// tputrain serve up --engine saxml: seed 003's four files applied, then what the seed does with
// curl (publish, poll /listcell) done through the API server's service proxy, with the waiting
// a 16-pod model-server JobSet and a model load need.
#include <set>

#include "saxml_render.h"
#include "serve_engines.h"
#include "serve_flow.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/readiness.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {
namespace {

constexpr char kJobSetApiVersion[] = "jobset.x-k8s.io/v1alpha2";
constexpr char kJobSetKind[] = "JobSet";
constexpr char kModelServerContainer[] = "sax-model-server";

// Where the wait stands; each look moves it on at most one step.
enum class Phase {
  kStarting,    // the Deployments' and the JobSet's pods are coming up
  kPublishing,  // every pod ready: publish (or adopt) the model
  kLoading,     // published: the model servers load it
};

struct Look {
  ServeUpEnv& env;
  const SaxmlUpRequest& request;
  const SaxmlObjects& rendered;
  SaxmlUpOutcome& outcome;
  bool no_nodes = false;
  Phase phase = Phase::kStarting;
  serve_flow::Progress progress{env.reporter, "serve " + request.model.id, ""};

  k8s::Client& client() { return env.apply.client; }
  std::string NsPath() const { return "/namespaces/" + http::PathSegment(outcome.ns); }
  ServeEndpoint Endpoint() { return {env.transport, outcome.endpoint, env.clock, std::chrono::seconds(60)}; }

  core::Result<bool> DeploymentReady(const std::string& name) {
    auto deployment =
        client().GetJson("/apis/apps/v1" + NsPath() + "/deployments/" + http::PathSegment(name), "deployment/" + name);
    if (!deployment) return core::Fail(deployment.error());
    return k8s::ReadyVerdict("Deployment", &*deployment).state == k8s::Verdict::State::kDone;
  }

  // The JobSet gives up on a crashing model server by itself: the crash fails its Job
  // (backoffLimit 0), the JobSet restarts every slice, and after failurePolicy.maxRestarts it is
  // Failed. Its pods are then gone or ended, so only the JobSet's condition says it: a failed
  // JobSet ends the wait.
  core::Status JobSetAlive() {
    auto jobset =
        client().GetJson("/apis/jobset.x-k8s.io/v1alpha2" + NsPath() + "/jobsets/" + http::PathSegment(rendered.jobset),
                         "jobset/" + rendered.jobset);
    if (!jobset) return core::Fail(jobset.error());
    const auto verdict = k8s::ReadyVerdict(kJobSetKind, &*jobset);
    if (verdict.state != k8s::Verdict::State::kFailed) return {};
    const int64_t restarts = core::IntAt(core::ObjectAt(*jobset, "status"), "restarts", 0);
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "JobSet " + rendered.jobset + " failed after " + std::to_string(restarts) +
                                            " restarts of its model servers (" + verdict.detail +
                                            "): kubectl get pods -l jobset.sigs.k8s.io/jobset-name=" + rendered.jobset +
                                            " shows them"));
  }

  // Every pod of the three workloads; a hopeless one, or a failed JobSet, ends the wait.
  core::Result<int> ModelServersReady() {
    if (auto alive = JobSetAlive(); !alive) return core::Fail(alive.error());
    auto pods = serve_pods::LivePods(client(), outcome.ns, "jobset.sigs.k8s.io/jobset-name=" + rendered.jobset,
                                     outcome.tpu_type, no_nodes, kModelServerContainer);
    if (!pods) return core::Fail(pods.error());
    return serve_pods::CountReady(*pods);
  }

  core::Result<bool> Starting() {
    for (const auto& [deployment, container] : {std::pair{rendered.admin_deployment, std::string("sax-admin-server")},
                                                std::pair{rendered.http_deployment, std::string("sax-http")}}) {
      auto pods = serve_pods::LivePods(client(), outcome.ns, "app=" + deployment, "", false, container);
      if (!pods) return core::Fail(pods.error());
    }
    auto admin = DeploymentReady(rendered.admin_deployment);
    if (!admin) return core::Fail(admin.error());
    auto front = DeploymentReady(rendered.http_deployment);
    if (!front) return core::Fail(front.error());
    auto servers = ModelServersReady();
    if (!servers) return core::Fail(servers.error());
    progress.Say(std::string("admin server ") + (*admin ? "ready" : "starting") + ", model servers " +
                 std::to_string(*servers) + "/" + std::to_string(rendered.model_server_pods) +
                 " pods ready, sax-http " + (*front ? "ready" : "starting"));
    return *admin && *front && *servers >= rendered.model_server_pods;
  }

  // Publishes the model, or adopts the same model already published (a re-run).
  core::Status Publish() {
    ServeEndpoint endpoint = Endpoint();
    auto listed = ListSaxModel(endpoint, request.model.id);
    SaxHttpTarget target{outcome.ns, rendered.service, serving::MakeEngine(serving::EngineKind::kSaxml)->DefaultPort(),
                         env.apply.access};
    state::LedgerEntry entry = ServedModelEntry(request.model, target);
    if (listed) {
      if (listed->model_path != request.model.model_path) {
        return core::Fail(core::Error::Make(core::ErrorKind::kAlreadyExists,
                                            request.model.id + " is already published with " + listed->model_path +
                                                " (not " + request.model.model_path +
                                                "): tputrain serve unpublish --model " + request.model.id + " first"));
      }
      env.reporter.Progress("serve " + request.model.id, "already published; adopted");
      entry.owned = false;  // cleanup leaves what it did not publish, unless --force
      if (auto recorded = env.apply.ledger.Creating(entry); !recorded) return recorded;
      return env.apply.ledger.Created(entry);
    }
    if (listed.error().kind != core::ErrorKind::kNotFound || listed.error().http_status == 404) {
      return core::Fail(listed.error());
    }
    // Recorded before it is sent: a publish whose answer is lost is still unpublished by cleanup.
    if (auto recorded = env.apply.ledger.Creating(entry); !recorded) return recorded;
    http::Request publish = serving::BuildPublish(outcome.endpoint, request.model);
    publish.timeout = endpoint.timeout;
    auto response = env.transport.Send(publish);
    if (!response) return core::Fail(response.error());
    if (response->status != 200) return core::Fail(serving::SaxHttpError(*response));
    outcome.published = true;
    return env.apply.ledger.Created(entry);
  }

  core::Result<bool> Loading() {
    auto servers = ModelServersReady();  // a model server that crashes while loading ends it
    if (!servers) return core::Fail(servers.error());
    auto listed = ListSaxModel(Endpoint(), request.model.id);
    if (!listed) return core::Fail(listed.error());
    outcome.active_replicas = listed->active_replicas;
    progress.Say("model " + request.model.id + ": " + std::to_string(listed->active_replicas) + "/" +
                 std::to_string(request.model.replicas) + " replicas active");
    return listed->active_replicas >= request.model.replicas;
  }

  core::Result<bool> LoadBalancerReady() {
    auto service = client().GetJson("/api/v1" + NsPath() + "/services/" + http::PathSegment(rendered.service),
                                    "service/" + rendered.service);
    if (!service) return core::Fail(service.error());
    const auto ingress = core::ArrayAt(core::ObjectAt(core::ObjectAt(*service, "status"), "loadBalancer"), "ingress");
    if (ingress.empty()) {
      progress.Say("waiting for the LoadBalancer's address");
      return false;
    }
    outcome.ingress = core::StringAt(ingress[0], "ip");
    if (outcome.ingress.empty()) outcome.ingress = core::StringAt(ingress[0], "hostname");
    return true;
  }

  core::Result<bool> Once() {
    if (phase == Phase::kStarting) {
      auto started = Starting();
      if (!started || !*started) return started;
      phase = Phase::kPublishing;
    }
    if (phase == Phase::kPublishing) {
      if (auto published = Publish(); !published) return core::Fail(published.error());
      phase = Phase::kLoading;
    }
    auto loaded = Loading();
    if (!loaded || !*loaded) return loaded;
    if (request.expose) return LoadBalancerReady();
    return true;
  }
};

// The model servers' last log lines, for a load that never completed: one pod per slice.
std::string ModelServerTails(k8s::Client& client, const std::string& ns, const std::string& jobset) {
  auto pods = serve_pods::Pods(client, ns, "jobset.sigs.k8s.io/jobset-name=" + jobset);
  if (!pods) return "";
  std::string out;
  std::set<std::string> jobs_seen;
  const auto items = core::ArrayAt(*pods, "items");
  for (const auto& pod : items) {
    const auto metadata = core::ObjectAt(pod, "metadata");
    const std::string job = core::StringAt(core::ObjectAt(metadata, "labels"), "jobset.sigs.k8s.io/job-index");
    if (!jobs_seen.insert(job).second) continue;
    const std::string name = core::StringAt(metadata, "name");
    const std::string tail = serve_pods::LogTail(client, ns, name, kModelServerContainer, 10);
    if (!tail.empty()) out += "\n" + name + ":\n" + tail;
  }
  return out;
}

}  // namespace

core::Result<SaxmlObjects> RenderSaxmlUp(const SaxmlUpRequest& request) {
  auto capacity = ResolveCapacity(request.capacity);
  if (!capacity) return core::Fail(capacity.error());
  auto rendered = RenderSaxml({request.tpu_type, request.model.replicas, request.expose, request.sets,
                               request.configuration, request.template_dirs});
  if (!rendered) return core::Fail(rendered.error());
  if (auto selected = serve_flow::SelectCapacity(rendered->objects, capacity->mode, "saxml"); !selected) {
    return core::Fail(selected.error());
  }
  return rendered;
}

core::Result<SaxmlUpOutcome> SaxmlUp(ServeUpEnv& env, const SaxmlUpRequest& request) {
  SaxmlUpOutcome outcome;
  outcome.tpu_type = request.tpu_type;
  outcome.model = request.model;
  auto capacity = ResolveCapacity(request.capacity);
  if (!capacity) return core::Fail(capacity.error());
  auto rendered = RenderSaxmlUp(request);
  if (!rendered) return core::Fail(rendered.error());
  outcome.jobset = rendered->jobset;
  outcome.service = rendered->service;
  serve_flow::Deployment deployment{
      "serve " + request.model.id,
      "saxml",
      request.ns,
      rendered->objects,
      request.model.id,  // what serve down --engine saxml finds them by
      {{"jobset", kJobSetApiVersion, kJobSetKind, env.load_jobset_manifest}},
      {request.create_nodepool, request.nodepool.empty() ? "saxml-" + outcome.tpu_type : request.nodepool,
       outcome.tpu_type,
       static_cast<int>(request.model.replicas),  // a slice per model-server group
       request.dry_run, request.capacity},
      outcome.service,
      serving::EngineKind::kSaxml};
  deployment.queue = request.queue;
  deployment.take_over = request.force;
  serve_flow::Env flow{env, env.apply, env.create_pools};
  auto no_nodes = serve_flow::Apply(flow, deployment, request.install_operators, request.dry_run, outcome);
  if (!no_nodes) return core::Fail(no_nodes.error());
  // --no-wait returns before the publish: the model servers are not up to load it yet, and a
  // re-run of serve up adopts what is applied and goes on from there.
  if (request.dry_run || !request.wait) return outcome;

  // Only what cannot get better (a hopeless pod, a refused publish) fails the wait.
  serve_flow::Wait wait{request.timeout ? *request.timeout : ServeTimeout(request.parameters),
                        "what was applied and published stays; tputrain serve list shows the model, tputrain serve "
                        "down --engine saxml removes it",
                        [](const core::Error& error) {
                          return error.kind == core::ErrorKind::kAlreadyExists ||
                                 error.kind == core::ErrorKind::kInvalidArgument || error.http_status == 500 ||
                                 error.http_status == 400;
                        },
                        capacity->mode};
  Look look{env, request, *rendered, outcome};
  look.no_nodes = *no_nodes;
  auto waited = serve_flow::WaitServing(flow, wait, [&] { return look.Once(); });
  if (!waited) {
    core::Error error = waited.error();
    if (error.kind == core::ErrorKind::kDeadlineExceeded && look.phase == Phase::kLoading) {
      const std::string tails = ModelServerTails(env.apply.client, outcome.ns, rendered->jobset);
      if (!tails.empty()) error.message += "; the model servers' last log lines:" + tails;
    }
    return core::Fail(error);
  }
  outcome.serving = outcome.active_replicas >= request.model.replicas;
  outcome.waited = *waited;
  env.reporter.Done("serve " + request.model.id, outcome.serving ? "serving" : "published");
  return outcome;
}

}  // namespace tputrain::workflow
