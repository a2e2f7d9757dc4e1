// serve up's JetStream: seed 002's JetStream + MaxText on a LeaderWorkerSet, from the model to a
// server that answers, with the waiting done the way serving needs (minutes to load weights,
// and a pod that cannot start said at once).
#include "serve_engines.h"
#include "serve_flow.h"
#include "template_values.h"
#include "tputrain/catalog/sizing.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

core::Result<ServeObjects> RenderServe(const JetStreamUpRequest& request, const std::string& template_name,
                                       const std::string& tpu_type) {
  render::RenderRequest render_request;
  render_request.template_name = template_name;
  render_request.template_dirs = request.template_dirs;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = {"TPU_TYPE=" + tpu_type};
  if (!request.checkpoint.empty()) render_request.sets.push_back("CHECKPOINT_PATH=" + request.checkpoint);
  render_request.sets.insert(render_request.sets.end(), request.sets.begin(), request.sets.end());
  return serve_flow::RenderWorkload(render_request, {"LeaderWorkerSet"});
}

}  // namespace

core::Result<std::string> ServeTemplateFor(const std::string& model, bool disaggregated) {
  if (model == "llama3.1-405b" && !disaggregated) return std::string("jetstream-pathways-405b");
  if (model == "llama2-70b" && disaggregated) return std::string("jetstream-pathways-disagg-70b");
  return core::Fail(
      core::Error::Usage("--model: " + model + (disaggregated ? " --disaggregated" : "") +
                         " has no serving template; served are llama3.1-405b (JetStream on Pathways) and llama2-70b "
                         "--disaggregated"));
}

std::chrono::milliseconds ServeTimeout(double parameters) {
  if (parameters >= 100e9) return std::chrono::minutes(45);
  if (parameters >= 20e9) return std::chrono::minutes(30);
  return std::chrono::minutes(15);
}

std::string ServingMilestone(std::string_view log) {
  // The seed's own progress lines (LOG_LEVEL=INFO), latest first.
  return serve_flow::Milestone(log, {{"Server up and ready to process requests", "server up"},
                                     {"Driver initialized.", "driver initialized"},
                                     {"Loaded all weights.", "weights loaded"}});
}

core::Result<JetStreamRendered> RenderJetStream(const JetStreamUpRequest& request) {
  auto capacity = ResolveCapacity(request.capacity);
  if (!capacity) return core::Fail(capacity.error());
  auto template_name = ServeTemplateFor(request.model, request.disaggregated);
  if (!template_name) return core::Fail(template_name.error());
  auto plan = catalog::PlanSlice({request.model, catalog::WorkloadMode::kServe, "", "", 0});
  if (!plan) return core::Fail(plan.error());
  JetStreamRendered out;
  out.template_name = *template_name;
  out.tpu_type = request.tpu_type.empty() ? plan->slice.accelerator_type : request.tpu_type;
  out.parameters = plan->model.parameters;
  auto rendered = RenderServe(request, *template_name, out.tpu_type);
  if (!rendered) return core::Fail(rendered.error());
  if (auto selected = serve_flow::SelectCapacity(rendered->objects, capacity->mode, *template_name); !selected) {
    return core::Fail(selected.error());
  }
  out.rendered = std::move(*rendered);
  return out;
}

core::Result<JetStreamUpOutcome> JetStreamUp(ServeUpEnv& env, const JetStreamUpRequest& request) {
  auto made = RenderJetStream(request);
  if (!made) return core::Fail(made.error());
  const CapacityMode capacity = ResolveCapacity(request.capacity).value_or(Capacity{}).mode;
  ServeObjects& rendered = made->rendered;
  JetStreamUpOutcome outcome;
  outcome.template_name = made->template_name;
  outcome.tpu_type = made->tpu_type;
  outcome.leaderworkerset = rendered.workload;
  outcome.service = rendered.service;
  serve_flow::Deployment deployment{
      "serve " + outcome.leaderworkerset,
      outcome.template_name,
      request.ns,
      std::move(rendered.objects),
      request.model,
      {serve_flow::LwsOperator(env.load_lws_manifest)},
      {request.create_nodepool, request.nodepool.empty() ? "jetstream-" + outcome.tpu_type : request.nodepool,
       outcome.tpu_type,
       request.disaggregated ? 2 : 1,  // prefill and decode on a slice each
       request.dry_run, request.capacity},
      outcome.service,
      serving::EngineKind::kJetStream};
  deployment.queue = request.queue;
  deployment.take_over = request.force;
  serve_flow::Env flow{env, env.apply, env.create_pools};
  auto no_nodes = serve_flow::Apply(flow, deployment, request.install_operators, request.dry_run, outcome);
  if (!no_nodes) return core::Fail(no_nodes.error());
  if (request.dry_run || !request.wait) return outcome;

  // The leader's log (LWS_NAME-0's, its server jax-tpu) says how far the load is.
  auto workload = serve_flow::WorkloadAt("LeaderWorkerSet", outcome.ns, outcome.leaderworkerset);
  workload.container = "jax-tpu";
  workload.tpu_type = outcome.tpu_type;
  workload.milestone = ServingMilestone;
  serve_flow::Wait wait{request.timeout ? *request.timeout : ServeTimeout(made->parameters),
                        "the LeaderWorkerSet stays; tputrain serve status shows it, tputrain serve down removes it",
                        {},
                        capacity};
  if (auto waited = serve_flow::WaitWorkload(env, wait, workload, deployment, *no_nodes, outcome); !waited) {
    return core::Fail(waited.error());
  }
  return outcome;
}

core::Result<std::vector<k8s::DeleteResult>> JetStreamDown(RecordedDeleteEnv& env,
                                                           const JetStreamDownRequest& request) {
  // Only for a run whose ledger does not name the model's objects: rendered as serve up did.
  auto render = [&]() -> core::Result<std::vector<k8s::Object>> {
    auto template_name = ServeTemplateFor(request.model, request.disaggregated);
    if (!template_name) return core::Fail(template_name.error());
    auto plan = catalog::PlanSlice({request.model, catalog::WorkloadMode::kServe, "", "", 0});
    if (!plan) return core::Fail(plan.error());
    JetStreamUpRequest as_up;
    as_up.model = request.model;
    as_up.sets = request.sets;
    if (request.configuration) {
      auto configuration = request.configuration();
      if (!configuration) return core::Fail(configuration.error());
      as_up.configuration = std::move(*configuration);
    }
    as_up.template_dirs = request.template_dirs;
    auto rendered =
        RenderServe(as_up, *template_name, request.tpu_type.empty() ? plan->slice.accelerator_type : request.tpu_type);
    if (!rendered) return core::Fail(rendered.error());
    return std::move(rendered->objects);
  };
  return serve_flow::DeleteServed(env, request.model, serve_flow::DownOptions(request.ns, request.dry_run), render);
}

}  // namespace tputrain::workflow
