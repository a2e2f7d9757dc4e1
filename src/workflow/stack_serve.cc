// A stack's served model: the `workload.serve` section as `serve up` checks its flags, and the
// step that applies it and waits until it answers, through the engine's own workflow call.
#include "stack_sections.h"
#include "stack_steps.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/gcp/names.h"
#include "tputrain/workflow/operators.h"

namespace tputrain::workflow::internal {
namespace {

// A key only some engines take, as `serve up` refuses its flag for the others.
struct EngineKey {
  const char* key;
  std::vector<WorkloadKind> engines;
};

const char* EngineName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kServeVllm:
      return "vllm";
    case WorkloadKind::kServeSaxml:
      return "saxml";
    default:
      return "jetstream";
  }
}

core::Status CheckEngineTakes(const Section& serve, WorkloadKind engine) {
  const auto jetstream = WorkloadKind::kServeJetStream;
  const auto vllm = WorkloadKind::kServeVllm;
  const auto saxml = WorkloadKind::kServeSaxml;
  const EngineKey keys[] = {{"disaggregated", {jetstream}}, {"checkpoint", {jetstream, saxml}},
                            {"bucket", {jetstream, saxml}}, {"lws-manifest", {jetstream, vllm}},
                            {"hf-token-file", {vllm}},      {"hf-config", {vllm}},
                            {"model-path", {saxml}},        {"sax-model", {saxml}},
                            {"replicas", {saxml}},          {"expose", {saxml}},
                            {"jobset-manifest", {saxml}}};
  for (const auto& [key, engines] : keys) {
    if (!serve.Has(key) || std::find(engines.begin(), engines.end(), engine) != engines.end()) continue;
    std::string takers;
    for (const auto kind : engines) takers += (takers.empty() ? "" : " or ") + std::string(EngineName(kind));
    return core::Fail(serve.At(key, "only for engine " + takers));
  }
  return {};
}

// What every engine's `serve up` checks alike (CheckUpFlags): the slice, the pool's name, the
// capacity and the timeout.
core::Result<std::optional<std::chrono::milliseconds>> CheckCommon(const Section& serve) {
  if (const std::string tpu_type = serve.Str("tpu-type"); !tpu_type.empty()) {
    if (auto slice = catalog::FindSliceType(tpu_type); !slice)
      return core::Fail(serve.At("tpu-type", slice.error().message));
  }
  if (const std::string pool = serve.Str("nodepool"); !pool.empty()) {
    if (auto valid = gcp::CheckResourceId("--nodepool", pool, gcp::kGkeNameLength); !valid) {
      return core::Fail(serve.Reworded(valid.error()));
    }
  }
  const CapacityFlags capacity{serve.Str("capacity"), serve.Bool("spot"), serve.Str("reservation"),
                               serve.Str("max-run-duration"), false};
  if (auto resolved = ResolveCapacity(capacity); !resolved) return core::Fail(serve.Reworded(resolved.error()));
  if (!serve.Has("timeout")) return std::optional<std::chrono::milliseconds>();
  auto timeout = core::ParseDuration("--timeout", serve.Str("timeout"));
  if (!timeout) return core::Fail(serve.Reworded(timeout.error()));
  return std::optional{*timeout};
}

template <typename Request>
void SetCommon(const Section& serve, Request& request) {
  request.wait = !serve.Bool("no-wait");
  request.install_operators = serve.Bool("install-operators");
  request.create_nodepool = serve.Bool("create-nodepool");
  request.nodepool = serve.Str("nodepool");
  request.queue = serve.Str("queue");
  request.capacity = CapacityFlags{serve.Str("capacity"), serve.Bool("spot"), serve.Str("reservation"),
                                   serve.Str("max-run-duration"), false};
}

}  // namespace

core::Status ServeWorkload(const Section& serve, const StackSettings& settings, StackWorkload& workload) {
  const std::string engine = serve.Str("engine");
  const std::string model = serve.Str("model");
  // As serve up: a Saxml preset's name chooses Saxml when no engine is given.
  workload.kind = engine == "vllm"                                                ? WorkloadKind::kServeVllm
                  : engine == "saxml" || (engine.empty() && IsSaxmlPreset(model)) ? WorkloadKind::kServeSaxml
                                                                                  : WorkloadKind::kServeJetStream;
  if (auto takes = CheckEngineTakes(serve, workload.kind); !takes) return core::Fail(takes.error());
  auto timeout = CheckCommon(serve);
  if (!timeout) return core::Fail(timeout.error());
  std::map<std::string, std::string> configuration = {{"PROJECT_ID", settings.project},
                                                      {"LOCATION", settings.location},
                                                      {"REGION", core::RegionOf(settings.location)},
                                                      {"CLUSTER_NAME", workload.cluster.cluster}};
  const std::string bucket = serve.Str("bucket", settings.bucket);
  if (!bucket.empty()) configuration["BUCKET"] = BucketNameOf(bucket);
  workload.lws_manifest = serve.Str("lws-manifest");
  if (workload.kind == WorkloadKind::kServeVllm) {
    VllmUpRequest request;
    request.plan = {model,         serve.Str("tpu-type"),          serve.Str("hf-config"), serve.Strings("set"),
                    configuration, settings.context->template_dirs};
    request.ns = workload.ns;
    request.timeout = *timeout;
    SetCommon(serve, request);
    if (serve.Has("hf-token-file")) {
      // Read as `serve up` reads its flag; the token stays in the request (the Secret's value),
      // never in the plan, the fingerprint or the ledger, which hold only the file's path.
      auto text = core::ReadFile(serve.Str("hf-token-file"), "", 4096);
      if (!text) return core::Fail(serve.At("hf-token-file", text.error().message));
      request.hf_token = std::move(*text);
    }
    if (auto prepared = PrepareVllm(request); !prepared) return core::Fail(serve.Reworded(prepared.error()));
    workload.vllm = std::move(request);
    return {};
  }
  if (workload.kind == WorkloadKind::kServeSaxml) {
    auto request = SaxmlRequestOf({model, serve.Str("model-path"), serve.Str("sax-model"), serve.Str("checkpoint"),
                                   serve.Number("replicas"), serve.Str("tpu-type")});
    if (!request) return core::Fail(serve.Reworded(request.error()));
    request->timeout = *timeout;
    request->expose = serve.Bool("expose");
    request->sets = serve.Strings("set");
    request->configuration = std::move(configuration);
    request->template_dirs = settings.context->template_dirs;
    request->ns = workload.ns;
    SetCommon(serve, *request);
    workload.jobset_manifest = serve.Str("jobset-manifest");
    workload.saxml = std::move(*request);
    return {};
  }
  ServeUpRequest request;
  request.model = model;
  request.disaggregated = serve.Bool("disaggregated");
  request.tpu_type = serve.Str("tpu-type");
  request.checkpoint = serve.Str("checkpoint");
  request.sets = serve.Strings("set");
  request.configuration = std::move(configuration);
  request.template_dirs = settings.context->template_dirs;
  request.ns = workload.ns;
  request.timeout = *timeout;
  SetCommon(serve, request);
  if (auto template_name = ServeTemplateFor(model, request.disaggregated); !template_name) {
    return core::Fail(serve.At("model", template_name.error().message));
  }
  if (!request.checkpoint.empty() && request.checkpoint.rfind("gs://", 0) != 0) {
    return core::Fail(serve.At("checkpoint", "expected gs://BUCKET/PATH, got '" + request.checkpoint + "'"));
  }
  workload.jetstream = std::move(request);
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
  ServeUpEnv serve{env, apply, load_lws, create_pools, *(*connection)->transport};
  StepDone done;
  if (workload.kind == WorkloadKind::kServeVllm) {
    auto prepared = PrepareVllm(*workload.vllm);
    if (!prepared) return core::Fail(prepared.error());
    auto up = VllmUp(serve, *workload.vllm, *prepared);
    if (!up) return core::Fail(up.error());
    done.detail = (up->serving ? "serving " : "applied ") + prepared->plan.model + " on " + prepared->plan.tpu_type +
                  " (" + up->ns + "/" + prepared->rendered.workload + ")";
  } else if (workload.kind == WorkloadKind::kServeSaxml) {
    SaxmlUpEnv saxml{serve, apply, loader("jobset", workload.jobset_manifest), create_pools, *(*connection)->transport};
    auto up = SaxmlUp(saxml, *workload.saxml);
    if (!up) return core::Fail(up.error());
    done.detail = (up->serving ? "serving " : "applied ") + up->model.id + " on " + up->tpu_type + " (" + up->ns + "/" +
                  up->jobset + ")";
  } else {
    auto up = ServeUp(serve, *workload.jetstream);
    if (!up) return core::Fail(up.error());
    done.detail = (up->serving ? "serving " : "applied ") + workload.jetstream->model + " on " + up->tpu_type + " (" +
                  up->ns + "/" + up->leaderworkerset + ")";
  }
  Remember(env, step.id, step.fingerprint, done.detail);
  return done;
}

}  // namespace tputrain::workflow::internal
