// tputrain serve up: seed 002's JetStream + MaxText on a LeaderWorkerSet, from the model to a
// server that answers, with the waiting done the way serving needs (minutes to load weights,
// and a pod that cannot start said at once).
#include <algorithm>

#include "serve_pods.h"
#include "tputrain/catalog/sizing.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/names.h"
#include "tputrain/k8s/pod_logs.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/operators.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/template_values.h"

namespace tputrain::workflow {
namespace {

using std::chrono::milliseconds;

constexpr char kLwsKind[] = "LeaderWorkerSet";
constexpr char kLwsApiVersion[] = "leaderworkerset.x-k8s.io/v1";
constexpr char kLeaderContainer[] = "jax-tpu";

using serve_pods::ConditionTrue;
using serve_pods::LogTail;
using serve_pods::Text;

struct Rendered {
  std::vector<k8s::Object> objects;
  std::string leaderworkerset;
  std::string service;
};

core::Result<Rendered> RenderServe(const ServeUpRequest& request, const std::string& template_name,
                                   const std::string& tpu_type) {
  render::RenderRequest render_request;
  render_request.template_name = template_name;
  render_request.template_dirs = request.template_dirs;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = {"TPU_TYPE=" + tpu_type};
  if (!request.checkpoint.empty()) render_request.sets.push_back("CHECKPOINT_PATH=" + request.checkpoint);
  render_request.sets.insert(render_request.sets.end(), request.sets.begin(), request.sets.end());
  auto files = render::RenderTemplate(render_request);
  if (!files) return core::Fail(files.error());
  Rendered rendered;
  for (const auto& file : files->files) {
    if (!file.yaml) continue;
    auto objects = k8s::ParseManifests(file.text, template_name + "/" + file.name);
    if (!objects) return core::Fail(objects.error());
    for (auto& object : *objects) {
      if (object.kind == kLwsKind && rendered.leaderworkerset.empty()) rendered.leaderworkerset = object.name;
      if (object.kind == "Service" && rendered.service.empty()) rendered.service = object.name;
      rendered.objects.push_back(std::move(object));
    }
  }
  if (rendered.leaderworkerset.empty() || rendered.service.empty()) {
    return core::Fail(core::Error::Internal("template " + template_name + " has no LeaderWorkerSet and Service"));
  }
  return rendered;
}

// One look at the LeaderWorkerSet and its pods: done, still going (with what to show), or a
// failure that waiting will not cure.
core::Result<bool> LookOnce(ServeUpEnv& env, const ServeUpOutcome& outcome, const serving::Engine& engine,
                            bool no_nodes, std::string& last_state) {
  k8s::Client& client = env.apply.client;
  const std::string lws_path = "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + http::PathSegment(outcome.ns) +
                               "/leaderworkersets/" + http::PathSegment(outcome.leaderworkerset);
  auto lws = client.GetJson(lws_path, "leaderworkerset/" + outcome.leaderworkerset);
  if (!lws) return core::Fail(lws.error());
  const std::string selector = "leaderworkerset.sigs.k8s.io/name=" + outcome.leaderworkerset;
  auto pods = client.GetJson(
      "/api/v1/namespaces/" + http::PathSegment(outcome.ns) + "/pods?labelSelector=" + http::UrlEncode(selector),
      "pods");
  if (!pods) return core::Fail(pods.error());
  if (auto hopeless =
          serve_pods::HopelessPod(client, outcome.ns, *pods, outcome.tpu_type, no_nodes, kLeaderContainer)) {
    return core::Fail(*hopeless);
  }
  const std::size_t total = pods->value("items", nlohmann::json::array()).size();
  const int ready = serve_pods::CountReady(*pods);
  // The leader's log says how far the load is; the pod is LWS_NAME-0, its server jax-tpu.
  std::string milestone =
      ServingMilestone(LogTail(client, outcome.ns, outcome.leaderworkerset + "-0", kLeaderContainer, 200));
  std::string state = std::to_string(ready) + "/" + std::to_string(total) + " pods ready";
  if (!milestone.empty()) state += ", " + milestone;
  if (state != last_state) {
    env.reporter.Progress("serve " + outcome.leaderworkerset, state);
    last_state = state;
  }
  if (!ConditionTrue(*lws, "Available")) return false;
  workflow::ServeEndpoint endpoint{env.transport, outcome.endpoint, env.poll.clock, std::chrono::seconds(30)};
  auto serving = IsServing(endpoint, engine);
  return serving && *serving;
}

}  // namespace

core::Result<std::string> ServeTemplateFor(const std::string& model, bool disaggregated) {
  if (model == "llama3.1-405b" && !disaggregated) return std::string("jetstream-pathways-405b");
  if (model == "llama2-70b" && disaggregated) return std::string("jetstream-pathways-disagg-70b");
  return core::Fail(core::Error::Usage(
      "--model: " + model + (disaggregated ? " --disaggregated" : "") +
      " has no serving template; served are llama3.1-405b (JetStream on Pathways, seed 002) and llama2-70b "
      "--disaggregated"));
}

milliseconds ServeTimeout(double parameters) {
  if (parameters >= 100e9) return std::chrono::minutes(45);
  if (parameters >= 20e9) return std::chrono::minutes(30);
  return std::chrono::minutes(15);
}

std::string ServingMilestone(std::string_view log) {
  // The seed's own progress lines (LOG_LEVEL=INFO), latest first.
  constexpr std::pair<std::string_view, std::string_view> kMilestones[] = {
      {"Server up and ready to process requests", "server up"},
      {"Driver initialized.", "driver initialized"},
      {"Loaded all weights.", "weights loaded"},
  };
  for (const auto& [line, said] : kMilestones) {
    if (log.find(line) != std::string_view::npos) return std::string(said);
  }
  return log.empty() ? "" : "loading";
}

core::Result<ServeUpOutcome> ServeUp(ServeUpEnv& env, const ServeUpRequest& request) {
  auto template_name = ServeTemplateFor(request.model, request.disaggregated);
  if (!template_name) return core::Fail(template_name.error());
  auto plan = catalog::PlanSlice({request.model, catalog::WorkloadMode::kServe, "", "", 0});
  if (!plan) return core::Fail(plan.error());
  ServeUpOutcome outcome;
  outcome.template_name = *template_name;
  outcome.tpu_type = request.tpu_type.empty() ? plan->slice.accelerator_type : request.tpu_type;
  auto rendered = RenderServe(request, *template_name, outcome.tpu_type);
  if (!rendered) return core::Fail(rendered.error());
  outcome.ns = request.ns.empty() ? env.apply.client.default_namespace() : request.ns;
  outcome.leaderworkerset = rendered->leaderworkerset;
  outcome.service = rendered->service;
  auto engine = serving::MakeEngine(serving::EngineKind::kJetStream);
  outcome.endpoint = k8s::ServiceProxyUrl(env.apply.client.server(), outcome.ns, outcome.service,
                                          std::to_string(engine->DefaultPort()));

  if (auto lws = env.apply.discovery.Lookup(kLwsApiVersion, kLwsKind); !lws) {
    if (!request.install_operators || !env.load_lws_manifest) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          "LeaderWorkerSet is not installed on the cluster: tputrain operators "
                                          "install lws (or serve up --install-operators)"));
    }
    auto info = FindOperator("lws");
    if (!info) return core::Fail(info.error());
    auto manifest = env.load_lws_manifest();
    if (!manifest) return core::Fail(manifest.error());
    auto installed =
        InstallOperator(env.apply, *info, *manifest, request.dry_run, std::chrono::minutes(5), env.reporter);
    if (!installed) return core::Fail(installed.error());
  }
  const serve_pods::SliceNodes slice_nodes{
      request.create_nodepool, request.nodepool.empty() ? "jetstream-" + outcome.tpu_type : request.nodepool,
      outcome.tpu_type,
      request.disaggregated ? 2 : 1,  // prefill and decode on a slice each
      request.dry_run};
  auto no_nodes = serve_pods::EnsureSliceNodes(env.create_pools, env.apply.client, env.reporter, slice_nodes);
  if (!no_nodes) return core::Fail(no_nodes.error());

  k8s::ApplyOptions options;
  options.ns = outcome.ns;
  options.dry_run = request.dry_run;
  env.reporter.Progress("serve " + outcome.leaderworkerset, "applying " + outcome.template_name);
  auto applied = ApplyRecorded(env.apply, rendered->objects, options, {}, request.model);
  if (!applied) return core::Fail(applied.error());
  outcome.applied = std::move(*applied);
  if (request.dry_run || !request.wait) return outcome;

  core::PollOptions poll;
  poll.initial_delay = std::chrono::seconds(2);
  poll.multiplier = 1.5;
  poll.max_delay = std::chrono::seconds(15);
  poll.timeout = request.timeout ? *request.timeout : ServeTimeout(plan->model.parameters);
  poll.timeout_note = "the LeaderWorkerSet stays; tputrain serve status shows it, tputrain serve down removes it";
  // Only a pod that cannot get better fails the wait; API hiccups are retried as elsewhere.
  poll.is_transient = [](const core::Error& error) { return error.kind != core::ErrorKind::kFailedPrecondition; };
  const auto start = env.poll.clock.Now();
  std::string last_state;
  auto done = core::PollUntil([&] { return LookOnce(env, outcome, *engine, *no_nodes, last_state); }, poll, env.poll);
  if (!done) return core::Fail(done.error());
  outcome.serving = true;
  outcome.waited = std::chrono::duration_cast<milliseconds>(env.poll.clock.Now() - start);
  env.reporter.Done("serve " + outcome.leaderworkerset, "serving");
  return outcome;
}

core::Result<std::vector<k8s::DeleteResult>> ServeDown(RecordedDeleteEnv& env, const ServeDownRequest& request) {
  k8s::DeleteOptions options;
  options.ns = request.ns;
  options.dry_run = request.dry_run;
  options.wait = true;
  options.timeout = std::chrono::minutes(5);
  auto recorded = RecordedServeObjects(env.store, env.run_id, env.access, request.model, request.ns);
  if (!recorded) return core::Fail(recorded.error());
  if (!recorded->empty()) {
    env.reporter.Info("serve down " + request.model + ": the " + std::to_string(recorded->size()) + " objects run " +
                      env.run_id + " applied for it, from its ledger");
    return DeleteRecorded(env, std::move(*recorded), options);
  }
  // A run that recorded none (an older release's, or another run's objects): the template
  // rendered again with the values given, as serve up rendered it.
  auto template_name = ServeTemplateFor(request.model, request.disaggregated);
  if (!template_name) return core::Fail(template_name.error());
  auto plan = catalog::PlanSlice({request.model, catalog::WorkloadMode::kServe, "", "", 0});
  if (!plan) return core::Fail(plan.error());
  ServeUpRequest as_up;
  as_up.model = request.model;
  as_up.sets = request.sets;
  as_up.configuration = request.configuration;
  as_up.template_dirs = request.template_dirs;
  auto rendered =
      RenderServe(as_up, *template_name, request.tpu_type.empty() ? plan->slice.accelerator_type : request.tpu_type);
  if (!rendered) return core::Fail(rendered.error());
  return DeleteRecorded(env, std::move(rendered->objects), options);
}

}  // namespace tputrain::workflow
