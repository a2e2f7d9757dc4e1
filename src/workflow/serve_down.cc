// serve down for every engine: what to delete checked before the question (PlanServeDown), then
// only what the run's ledger holds for the model deleted (ServeDown); Saxml's model unpublished first.
#include "serve_bucket.h"
#include "serve_engine_options.h"
#include "serve_engines.h"
#include "tpu_type.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/serve_up.h"

namespace tputrain::workflow {
namespace {

using serving::EngineKind;

bool Given(const ServeDownRequest& request, std::string_view option) {
  if (option == "disaggregated") return request.disaggregated;
  if (option == "replicas") return !request.replicas.empty();
  if (option == "sax-model") return !request.sax_model.empty();
  if (option == "tpu-type") return !request.tpu_type.empty();
  if (option == "set") return !request.sets.empty();
  if (option == "bucket") return !request.bucket.empty();
  return false;
}

core::Status PlanSaxmlDown(ServeDownPlan& plan) {
  const ServeDownRequest& request = plan.request;
  auto preset = FindSaxmlPreset(request.model);
  auto id = SaxModelIdOf("--sax-model", request.sax_model.empty() && preset ? preset->model.id : request.sax_model);
  if (!id) return core::Fail(id.error());
  auto replicas = request.replicas.empty() ? core::Result<int64_t>(preset ? preset->model.replicas : 1)
                                           : core::ParseWhole("--replicas", request.replicas, 1, 64);
  if (!replicas) return core::Fail(replicas.error());
  if (auto valid = CheckTpuType("--tpu-type", request.tpu_type); !valid) return core::Fail(valid.error());
  plan.tpu_type = !request.tpu_type.empty() ? request.tpu_type : preset ? preset->tpu_type : "";
  if (plan.tpu_type.empty()) return core::Fail(core::Error::Usage("--tpu-type: needed for a model that is no preset"));
  plan.sax_model = *id;
  plan.replicas = *replicas;
  plan.question = "Unpublish " + *id + " and delete the Saxml servers (node pools stay)?";
  return {};
}

}  // namespace

core::Result<ServeDownPlan> PlanServeDown(const ServeDownRequest& request) {
  ServeDownPlan plan;
  plan.request = request;
  auto engine = ServeEngineOf("--engine", request.engine, request.model);
  if (!engine) return core::Fail(engine.error());
  plan.engine = *engine;
  const auto given = [&request](std::string_view option) { return Given(request, option); };
  if (auto refused = RefusedOption(plan.engine, ServeDownEngineOptions(), given)) {
    return core::Fail(
        core::Error::Usage("--" + refused->option + ": only for --engine " + refused->takers +
                           (plan.engine == EngineKind::kVllm ? " (vLLM's: what to delete is the ledger's)" : "")));
  }
  if (plan.engine == EngineKind::kSaxml) {
    if (auto planned = PlanSaxmlDown(plan); !planned) return core::Fail(planned.error());
    return plan;
  }
  if (plan.engine == EngineKind::kVllm) {
    if (auto valid = CheckVllmModel(request.model); !valid) return core::Fail(valid.error());
    plan.question = "Delete what serve up applied for " + request.model + " (node pools stay)?";
    return plan;
  }
  if (auto template_name = ServeTemplateFor(request.model, request.disaggregated); !template_name) {
    return core::Fail(template_name.error());
  }
  plan.question = "Delete the serving objects of " + request.model + " (node pools stay)?";
  return plan;
}

core::Result<ServeDownOutcome> ServeDown(Root& root, const ServeDownPlan& plan) {
  const ServeDownRequest& request = plan.request;
  auto run = RecordedRunOf(root, request.ledger);
  if (!run) return core::Fail(run.error());
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  RecordedDeleteEnv env = RecordedDeleteEnvOf(root, request.access, **connection, *run);
  ServeDownOutcome outcome;
  outcome.engine = plan.engine;
  outcome.model = request.model;
  // Not the run's bucket for JetStream: what to delete comes from its ledger; values only for an
  // older run's, read only then. Saxml's may still be the run's one bucket.
  const ServeBucketRequest bucket{request.bucket, request.sets, "", request.ledger, plan.engine == EngineKind::kSaxml};
  const ConfigurationLoader configuration = [&root, &bucket] { return ServeConfiguration(root, bucket); };
  const std::string& ns = request.access.ns;
  if (plan.engine == EngineKind::kVllm) {
    auto deleted = VllmDown(env, request.model, ns, request.dry_run);
    if (!deleted) return core::Fail(deleted.error());
    outcome.deleted = std::move(*deleted);
    return outcome;
  }
  if (plan.engine == EngineKind::kJetStream) {
    auto deleted = JetStreamDown(env, {request.model, request.disaggregated, request.tpu_type, request.sets,
                                       configuration, root.TemplateDirs(), ns, request.dry_run});
    if (!deleted) return core::Fail(deleted.error());
    outcome.deleted = std::move(*deleted);
    return outcome;
  }
  auto down = SaxmlDown(env, *(*connection)->transport,
                        {plan.sax_model, plan.tpu_type, plan.replicas, request.sets, configuration, root.TemplateDirs(),
                         ns, request.dry_run});
  if (!down) return core::Fail(down.error());
  outcome.model = plan.sax_model;
  outcome.deleted = std::move(down->deleted);
  outcome.unpublished = down->unpublished;
  outcome.unpublish_note = down->unpublish_note;
  // A dry run sends no unpublish; it says the one it would send.
  if (request.dry_run) {
    const k8s::Client& client = *(*connection)->client;
    outcome.would_unpublish = serving::BuildUnpublish(
        SaxHttpEndpoint(client.server(), ns.empty() ? client.default_namespace() : ns), plan.sax_model);
  }
  return outcome;
}

}  // namespace tputrain::workflow
