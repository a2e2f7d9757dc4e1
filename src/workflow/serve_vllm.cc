// tputrain serve up|down --engine vllm: vLLM's template applied through the serving skeleton,
// then a wait that knows vLLM keeps its port closed until the model is loaded and compiled.
#include "serve_engines.h"
#include "serve_flow.h"

namespace tputrain::workflow {
namespace {

serve_flow::Workload WorkloadOf(const VllmPrepared& prepared, const std::string& ns) {
  const VllmObjects& rendered = prepared.rendered;
  auto workload = serve_flow::WorkloadAt(rendered.workload_kind, ns, rendered.workload);
  workload.container = rendered.workload_kind == "LeaderWorkerSet" ? "vllm-leader" : "vllm";
  workload.tpu_type = prepared.plan.tpu_type;
  workload.milestone = VllmMilestone;
  // vLLM's front end giving up on its engine (VLLM_ENGINE_READY_TIMEOUT_S): the container exits,
  // and a restart starts the same slow load over.
  workload.fatal_line = "Timed out waiting for engine core processes to start";
  workload.fatal_hint = "vLLM gave up starting its engine: a longer --set ENGINE_READY_TIMEOUT_S, or a larger slice";
  // The API server's proxy answers 502/503 while vLLM's port is closed.
  workload.loading_note = "loading (vLLM opens its port once the model is loaded and compiled)";
  return workload;
}

}  // namespace

std::string VllmMilestone(std::string_view log) {
  // vLLM's own lines (and multi-node-serving.sh's, multi-host), the latest stage first.
  const std::string said = serve_flow::Milestone(log, {{"Application startup complete", "server up"},
                                                       {"Starting vLLM API server", "starting the API server"},
                                                       {"Starting vLLM server on", "starting the API server"},
                                                       {"Model loading took", "weights loaded"},
                                                       {"Loading weights took", "weights loaded"},
                                                       {"All ray workers are active", "Ray cluster up"}});
  if (said != "loading") return said;
  // "Wait for all ray workers to be active. 2/4 is active": the latest count.
  constexpr std::string_view kRayWait = "Wait for all ray workers to be active. ";
  if (const auto at = log.rfind(kRayWait); at != std::string_view::npos) {
    const auto count = log.substr(at + kRayWait.size());
    const auto end = count.find(" is active");
    if (end != std::string_view::npos && end <= 12) return "Ray workers " + std::string(count.substr(0, end));
  }
  return said;
}

core::Result<ServedOutcome> VllmUp(ServeUpEnv& env, const VllmUpRequest& request, const VllmPrepared& prepared,
                                   bool dry_run) {
  const VllmObjects& rendered = prepared.rendered;
  serve_flow::Deployment deployment{
      "serve " + rendered.workload,
      prepared.plan.template_name,
      request.ns,
      rendered.objects,
      request.plan.model,
      {},
      {request.create_nodepool, request.nodepool.empty() ? "vllm-" + prepared.plan.tpu_type : request.nodepool,
       prepared.plan.tpu_type, 1, dry_run, request.capacity},
      rendered.service,
      serving::EngineKind::kVllm};
  deployment.queue = request.queue;
  deployment.take_over = request.force;
  if (rendered.workload_kind == "LeaderWorkerSet") {
    deployment.operators.push_back(serve_flow::LwsOperator(env.load_lws_manifest));
  }
  ServedOutcome outcome;
  serve_flow::Env flow{env, env.apply, env.create_pools};
  auto no_nodes = serve_flow::Apply(flow, deployment, request.install_operators, dry_run, outcome);
  if (!no_nodes) return core::Fail(no_nodes.error());
  if (dry_run || !request.wait) return outcome;

  // A first start downloads and compiles for 10-30 min, whatever the model's size.
  const auto patience =
      std::max<std::chrono::milliseconds>(ServeTimeout(prepared.plan.parameters), std::chrono::minutes(30));
  serve_flow::Wait wait{request.timeout.value_or(patience),
                        "the " + rendered.workload_kind + " stays; tputrain serve status shows it, tputrain serve " +
                            "down --engine vllm --model " + request.plan.model + " removes it",
                        {},
                        ResolveCapacity(request.capacity).value_or(Capacity{}).mode};
  if (auto waited =
          serve_flow::WaitWorkload(env, wait, WorkloadOf(prepared, outcome.ns), deployment, *no_nodes, outcome);
      !waited) {
    return core::Fail(waited.error());
  }
  return outcome;
}

core::Result<std::vector<k8s::DeleteResult>> VllmDown(RecordedDeleteEnv& env, const std::string& model,
                                                      const std::string& ns, bool dry_run) {
  // Every release that served vLLM recorded the model: nothing is rendered again.
  return serve_flow::DeleteServed(env, model, serve_flow::DownOptions(ns, dry_run));
}

}  // namespace tputrain::workflow
