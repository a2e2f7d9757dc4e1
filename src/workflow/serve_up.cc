// serve up for every engine: the request checked and the engine's own request made (PlanServeUp),
// then the engine's flow, its outcome said alike (ServeUp).
#include "tputrain/workflow/serve_up.h"

#include "names.h"
#include "serve_bucket.h"
#include "serve_engine_options.h"
#include "serve_engines.h"
#include "tpu_type.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"

namespace tputrain::workflow {
namespace {

using serving::EngineKind;

// The options of `options` the request gives (a flag given, a value not empty).
bool Given(const ServeUpRequest& request, std::string_view option) {
  if (option == "disaggregated") return request.disaggregated;
  if (option == "checkpoint") return !request.checkpoint.empty();
  if (option == "bucket") return !request.bucket.empty();
  if (option == "lws-manifest") return !request.access.lws_manifest.empty();
  if (option == "jobset-manifest") return !request.access.jobset_manifest.empty();
  if (option == "replicas") return !request.replicas.empty();
  if (option == "model-path") return !request.model_path.empty();
  if (option == "sax-model") return !request.sax_model.empty();
  if (option == "expose") return request.expose;
  if (option == "hf-token-file") return !request.hf_token_file.empty();
  if (option == "hf-config") return !request.hf_config.empty();
  return false;
}

// What every engine checks alike, before any call: the slice, the pool's name, where a pool is
// created, the capacity, and the timeout, returned parsed.
core::Result<std::optional<std::chrono::milliseconds>> CheckCommon(const ServeUpRequest& request) {
  // --tpu-type before --cluster is looked up: a typo is not reported after a GKE call.
  if (auto valid = CheckTpuType("--tpu-type", request.tpu_type); !valid) return core::Fail(valid.error());
  if (!request.nodepool.empty()) {
    if (auto valid = CheckGkeName("--nodepool", request.nodepool); !valid) return core::Fail(valid.error());
  }
  const KubeAccessFlags& access = request.access.access;
  if (request.create_nodepool && access.gke_cluster.empty() && !access.gke_ref) {
    return core::Fail(core::Error::Usage("--create-nodepool: needs --cluster (the GKE cluster to add the pool to)"));
  }
  if (auto capacity = ResolveCapacity(request.capacity); !capacity) return core::Fail(capacity.error());
  if (request.timeout.empty()) return std::optional<std::chrono::milliseconds>();
  auto timeout = core::ParseDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  return std::optional{*timeout};
}

// The values every engine's request takes alike.
template <typename EngineRequest>
void SetCommon(const ServeUpRequest& request, std::optional<std::chrono::milliseconds> timeout, EngineRequest& engine) {
  engine.ns = request.access.access.ns;
  engine.timeout = timeout;
  engine.wait = request.wait;
  engine.install_operators = request.install_operators;
  engine.create_nodepool = request.create_nodepool;
  engine.nodepool = request.nodepool;
  engine.capacity = request.capacity;
  engine.queue = request.queue;
  engine.force = request.force;
}

core::Result<JetStreamUpRequest> JetStreamRequestOf(const ServeUpRequest& request) {
  JetStreamUpRequest jetstream;
  jetstream.model = request.model;
  jetstream.disaggregated = request.disaggregated;
  jetstream.tpu_type = request.tpu_type;
  jetstream.checkpoint = request.checkpoint;
  jetstream.sets = request.sets;
  jetstream.dry_run = request.access.dry_run;
  if (auto template_name = ServeTemplateFor(request.model, request.disaggregated); !template_name) {
    return core::Fail(template_name.error());
  }
  if (!request.checkpoint.empty() && request.checkpoint.rfind("gs://", 0) != 0) {
    return core::Fail(core::Error::Usage("--checkpoint: expected gs://BUCKET/PATH, got '" + request.checkpoint + "'"));
  }
  return jetstream;
}

core::Result<VllmUpRequest> VllmRequestOf(const ServeUpRequest& request,
                                          const std::vector<std::string>& template_dirs) {
  VllmUpRequest vllm;
  vllm.plan = {request.model, request.tpu_type, request.hf_config, request.sets, {}, template_dirs};
  if (!request.hf_token_file.empty()) {
    auto text = core::ReadFile(request.hf_token_file, "--hf-token-file", 4096);
    if (!text) return core::Fail(text.error());
    vllm.hf_token = std::move(*text);
  }
  return vllm;
}

// The objects as they may be shown (a Secret's values redacted).
std::vector<nlohmann::json> ShownAll(const std::vector<k8s::Object>& objects) {
  std::vector<nlohmann::json> shown;
  for (const auto& object : objects) shown.push_back(Shown(object));
  return shown;
}

// JetStream's outcome: the model, its slice and template, its LeaderWorkerSet and Service.
void SayJetStream(const JetStreamUpRequest& request, const std::string& tpu_type, const std::string& template_name,
                  const std::string& leaderworkerset, const std::string& service, ServeUpOutcome& outcome) {
  outcome.model = request.model;
  outcome.tpu_type = tpu_type;
  outcome.template_name = template_name;
  outcome.workload_kind = "LeaderWorkerSet";
  outcome.workload = leaderworkerset;
  outcome.service = service;
  outcome.ask = "tputrain serve generate -n " + outcome.ns + " --prompt \"...\"";
  outcome.endpoint_note = "generate (through the API server)";
}

void SayVllm(const VllmPrepared& prepared, ServeUpOutcome& outcome) {
  const auto& [plan, rendered] = prepared;
  outcome.model = plan.model;
  outcome.tpu_type = plan.tpu_type;
  outcome.template_name = plan.template_name;
  outcome.workload_kind = rendered.workload_kind;
  outcome.workload = rendered.workload;
  outcome.service = rendered.service;
  outcome.hosts = plan.hosts;
  outcome.why = plan.why;
  const std::string service = rendered.service == "vllm-service" ? "" : " --service " + rendered.service;
  outcome.ask = "tputrain serve generate --engine vllm -n " + outcome.ns + service + " --prompt \"...\"";
  outcome.endpoint_note = "v1/ (OpenAI API, through the API server)";
}

// Saxml's outcome: the model published, its slices, its model-server JobSet and sax-http's Service.
void SaySaxml(const SaxmlUpRequest& request, const std::string& jobset, const std::string& service,
              ServeUpOutcome& outcome) {
  outcome.model = request.model.id;
  outcome.tpu_type = request.tpu_type;
  outcome.template_name = "saxml";
  outcome.workload_kind = "JobSet";
  outcome.workload = jobset;
  outcome.service = service;
  outcome.sax = request.model;
  outcome.ask = "tputrain serve generate --engine saxml -n " + outcome.ns + " --query \"...\"";
  outcome.endpoint_note = "generate (through the API server)";
}

void SayPlacement(ServeUpOutcome& outcome) {
  outcome.placement = outcome.sax ? "(" + std::to_string(outcome.sax->replicas) + " replicas on " + outcome.tpu_type +
                                        ", " + outcome.ns + "/" + outcome.workload + ")"
                                  : "on " + outcome.tpu_type + " (" + outcome.ns + "/" + outcome.workload + ")";
}

// --dry-run with no cluster at hand: the engine's objects, rendered and shown; nothing opened.
core::Result<ServeUpOutcome> RenderedOnly(const ServeUpPlan& plan) {
  ServeUpOutcome outcome;
  outcome.engine = plan.engine;
  outcome.ns = plan.access.access.ns;
  outcome.dry_run = true;
  std::vector<k8s::Object> objects;
  if (plan.engine == EngineKind::kVllm) {
    SayVllm(*plan.vllm_prepared, outcome);
    objects = plan.vllm_prepared->rendered.objects;
  } else if (plan.engine == EngineKind::kSaxml) {
    auto rendered = RenderSaxmlUp(*plan.saxml);
    if (!rendered) return core::Fail(rendered.error());
    SaySaxml(*plan.saxml, rendered->jobset, rendered->service, outcome);
    outcome.would_publish = serving::BuildPublish("", plan.saxml->model);
    objects = std::move(rendered->objects);
  } else {
    auto rendered = RenderJetStream(*plan.jetstream);
    if (!rendered) return core::Fail(rendered.error());
    SayJetStream(*plan.jetstream, rendered->tpu_type, rendered->template_name, rendered->rendered.workload,
                 rendered->rendered.service, outcome);
    objects = std::move(rendered->rendered.objects);
  }
  SayPlacement(outcome);
  outcome.objects = ShownAll(objects);
  return outcome;
}

}  // namespace

core::Result<ServeUpPlan> PlanServeUpWith(const ServeUpRequest& request, const ConfigurationLoader& configuration,
                                          const std::vector<std::string>& template_dirs) {
  ServeUpPlan plan;
  plan.access = request.access;
  auto engine = ServeEngineOf("--engine", request.engine, request.model);
  if (!engine) return core::Fail(engine.error());
  plan.engine = *engine;
  const auto given = [&request](std::string_view option) { return Given(request, option); };
  if (auto refused = RefusedOption(plan.engine, ServeUpEngineOptions(), given)) {
    return core::Fail(core::Error::Usage("--" + refused->option + ": only for --engine " + refused->takers));
  }
  auto timeout = CheckCommon(request);
  if (!timeout) return core::Fail(timeout.error());
  if (plan.engine == EngineKind::kVllm) {
    auto vllm = VllmRequestOf(request, template_dirs);
    if (!vllm) return core::Fail(vllm.error());
    SetCommon(request, *timeout, *vllm);
    auto prepared = PrepareVllm(*vllm);
    if (!prepared) return core::Fail(prepared.error());
    plan.vllm = std::move(*vllm);
    plan.vllm_prepared = std::move(*prepared);
    return plan;
  }
  if (plan.engine == EngineKind::kSaxml) {
    auto saxml = SaxmlRequestOf(
        {request.model, request.model_path, request.sax_model, request.checkpoint, request.replicas, request.tpu_type});
    if (!saxml) return core::Fail(saxml.error());
    SetCommon(request, *timeout, *saxml);
    saxml->expose = request.expose;
    saxml->sets = request.sets;
    saxml->template_dirs = template_dirs;
    saxml->dry_run = request.access.dry_run;
    auto values = configuration();
    if (!values) return core::Fail(values.error());
    saxml->configuration = std::move(*values);
    plan.saxml = std::move(*saxml);
    return plan;
  }
  auto jetstream = JetStreamRequestOf(request);
  if (!jetstream) return core::Fail(jetstream.error());
  SetCommon(request, *timeout, *jetstream);
  jetstream->template_dirs = template_dirs;
  auto values = configuration();
  if (!values) return core::Fail(values.error());
  jetstream->configuration = std::move(*values);
  plan.jetstream = std::move(*jetstream);
  return plan;
}

core::Result<ServeUpPlan> PlanServeUp(Root& root, const ServeUpRequest& request) {
  const ServeBucketRequest bucket{request.bucket, request.sets, request.checkpoint, request.access.ledger};
  auto plan = PlanServeUpWith(
      request, [&root, &bucket] { return ServeConfiguration(root, bucket); }, root.TemplateDirs());
  if (!plan) return core::Fail(plan.error());
  // Read, it is a secret of the process: whatever quotes it later (an admission webhook's
  // refusal, a crashing container's log) is printed redacted.
  if (plan->vllm && plan->vllm->hf_token) root.redactor().Hold(*plan->vllm->hf_token);
  return plan;
}

core::Result<ServeUpOutcome> ServeUpIn(ServeUpEnv& env, const ServeUpPlan& plan) {
  ServeUpOutcome outcome;
  outcome.engine = plan.engine;
  outcome.dry_run = plan.access.dry_run;
  outcome.validated = plan.access.dry_run;
  if (plan.engine == EngineKind::kVllm) {
    auto up = VllmUp(env, *plan.vllm, *plan.vllm_prepared, plan.access.dry_run);
    if (!up) return core::Fail(up.error());
    static_cast<ServedOutcome&>(outcome) = std::move(*up);
    SayVllm(*plan.vllm_prepared, outcome);
  } else if (plan.engine == EngineKind::kSaxml) {
    auto up = SaxmlUp(env, *plan.saxml);
    if (!up) return core::Fail(up.error());
    static_cast<ServedOutcome&>(outcome) = *up;
    SaySaxml(*plan.saxml, up->jobset, up->service, outcome);
    outcome.published = up->published;
    outcome.active_replicas = up->active_replicas;
    outcome.ingress = up->ingress;
    if (outcome.dry_run) outcome.would_publish = serving::BuildPublish(up->endpoint, plan.saxml->model);
  } else {
    auto up = JetStreamUp(env, *plan.jetstream);
    if (!up) return core::Fail(up.error());
    static_cast<ServedOutcome&>(outcome) = *up;
    SayJetStream(*plan.jetstream, up->tpu_type, up->template_name, up->leaderworkerset, up->service, outcome);
  }
  SayPlacement(outcome);
  if (outcome.dry_run) {
    for (const auto& applied : outcome.applied) outcome.objects.push_back(Shown(applied.object));
  }
  return outcome;
}

core::Result<ServeUpOutcome> ServeUp(Root& root, const ServeUpPlan& plan) {
  if (plan.access.dry_run && !ClusterAtHand(root, plan.access.access)) return RenderedOnly(plan);
  core::Result<ServeUpOutcome> up = core::Fail(core::Error::Internal("serve up did not run"));
  auto ran = WithServeUpEnv(root, plan.access, [&](ServeUpEnv& env) -> core::Status {
    up = ServeUpIn(env, plan);
    return up ? core::Status{} : core::Fail(up.error());
  });
  if (!ran) return core::Fail(ran.error());
  return up;
}

}  // namespace tputrain::workflow
