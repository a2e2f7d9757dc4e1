// A stack's served model: the `workload.serve` section checked as `serve up` checks its flags (its
// request, planned by the same PlanServeUp), and the step that runs the same flow.
#include "serve_engine_options.h"
#include "serve_engines.h"
#include "stack_sections.h"
#include "stack_steps.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/workflow/operators.h"

namespace tputrain::workflow::internal {
namespace {

// The section's keys as serve up's flags (serve up's request): one check for both.
ServeUpRequest RequestOf(const Section& serve, const StackWorkload& workload) {
  ServeUpRequest request;
  request.engine = serve.Str("engine");
  request.model = serve.Str("model");
  request.tpu_type = serve.Str("tpu-type");
  request.sets = serve.Strings("set");
  request.timeout = serve.Str("timeout");
  request.wait = !serve.Bool("no-wait");
  request.install_operators = serve.Bool("install-operators");
  request.create_nodepool = serve.Bool("create-nodepool");
  request.nodepool = serve.Str("nodepool");
  request.capacity = CapacityOf(serve);
  request.queue = serve.Str("queue");
  request.disaggregated = serve.Bool("disaggregated");
  request.checkpoint = serve.Str("checkpoint");
  request.replicas = serve.Number("replicas");
  request.model_path = serve.Str("model-path");
  request.sax_model = serve.Str("sax-model");
  request.expose = serve.Bool("expose");
  request.hf_token_file = serve.Str("hf-token-file");
  request.hf_config = serve.Str("hf-config");
  request.access.access.gke_ref = workload.cluster;  // the stack's cluster, where its pools go
  request.access.access.ns = workload.ns;
  request.access.lws_manifest = serve.Str("lws-manifest");
  request.access.jobset_manifest = serve.Str("jobset-manifest");
  return request;
}

WorkloadKind KindOf(serving::EngineKind engine) {
  switch (engine) {
    case serving::EngineKind::kVllm:
      return WorkloadKind::kServeVllm;
    case serving::EngineKind::kSaxml:
      return WorkloadKind::kServeSaxml;
    default:
      return WorkloadKind::kServeJetStream;
  }
}

}  // namespace

core::Status ServeWorkload(const Section& serve, const StackSettings& settings, StackWorkload& workload) {
  const ServeUpRequest request = RequestOf(serve, workload);
  auto engine = ServeEngineOf("engine", request.engine, request.model);
  if (!engine) return core::Fail(serve.Reworded(engine.error()));
  // A key written is a key given, whatever its value: said as serve up refuses its flag.
  const auto given = [&serve](std::string_view key) { return serve.Has(std::string(key)); };
  if (auto refused = RefusedOption(*engine, ServeUpEngineOptions(), given)) {
    return core::Fail(serve.At(refused->option, "only for engine " + refused->takers));
  }
  const ConfigurationLoader configuration = [&]() -> core::Result<std::map<std::string, std::string>> {
    std::map<std::string, std::string> values = {{"PROJECT_ID", settings.project},
                                                 {"LOCATION", settings.location},
                                                 {"REGION", core::RegionOf(settings.location)},
                                                 {"CLUSTER_NAME", workload.cluster.cluster}};
    const std::string bucket = serve.Str("bucket", settings.bucket);
    if (!bucket.empty()) values["BUCKET"] = BucketNameOf(bucket);
    return values;
  };
  auto plan = PlanServeUpWith(request, configuration, settings.context->template_dirs);
  if (!plan) return core::Fail(serve.Reworded(plan.error()));
  workload.kind = KindOf(plan->engine);
  workload.lws_manifest = request.access.lws_manifest;
  workload.jobset_manifest = request.access.jobset_manifest;
  workload.jetstream = std::move(plan->jetstream);
  workload.vllm = std::move(plan->vllm);
  workload.saxml = std::move(plan->saxml);
  return {};
}

core::Result<StepDone> RunServe(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  const StackWorkload& workload = *step.workload;
  if (DoneBefore(context, step.id, step.fingerprint)) {
    return StepDone{{}, true, "done before: " + MemoDetail(context, step.id)};
  }
  auto connection = Connect(context, workload.cluster);
  if (!connection) return core::Fail(connection.error());
  RecordedApplyEnv apply{env, *(*connection)->client, *(*connection)->discovery,
                         state::AccessRecord::Gke(workload.cluster.Name()), LedgerRecorder{env.ledger, env.run_id}};
  // An operator's manifest: the file's copy, else its pinned release.
  auto loader = [&](const std::string& name, const std::string& manifest) {
    return [&context, name, manifest]() -> core::Result<std::vector<k8s::Object>> {
      auto info = FindOperator(name);
      if (!info) return core::Fail(info.error());
      if (context.stack_env.reach.downloads == nullptr) return core::Fail(core::Error::Internal("no downloads"));
      return LoadOperatorManifest(*context.stack_env.reach.downloads, manifest.empty() ? info->manifest_url : manifest);
    };
  };
  std::function<core::Result<std::vector<k8s::Object>>()> load_lws = loader("lws", workload.lws_manifest);
  // The slice's pools go into the stack's cluster and run, as its other pools do.
  auto create_pools = [&](const std::vector<gcp::container::NodePoolSpec>& pools) -> core::Status {
    auto created = CreateNodePools(env, workload.cluster, pools);
    return created ? core::Status{} : core::Fail(created.error());
  };
  ServeUpEnv serve{
      env, apply, load_lws, create_pools, *(*connection)->transport, loader("jobset", workload.jobset_manifest)};
  ServeUpPlan plan;
  plan.engine = workload.kind == WorkloadKind::kServeVllm    ? serving::EngineKind::kVllm
                : workload.kind == WorkloadKind::kServeSaxml ? serving::EngineKind::kSaxml
                                                             : serving::EngineKind::kJetStream;
  plan.jetstream = workload.jetstream;
  plan.vllm = workload.vllm;
  plan.saxml = workload.saxml;
  if (workload.vllm) {
    auto prepared = PrepareVllm(*workload.vllm);
    if (!prepared) return core::Fail(prepared.error());
    plan.vllm_prepared = std::move(*prepared);
  }
  auto up = ServeUpIn(serve, plan);
  if (!up) return core::Fail(up.error());
  StepDone done;
  done.detail = (up->serving ? "serving " : "applied ") + up->model + " on " + up->tpu_type + " (" + up->ns + "/" +
                up->workload + ")";
  Remember(env, step.id, step.fingerprint, done.detail);
  return done;
}

}  // namespace tputrain::workflow::internal
