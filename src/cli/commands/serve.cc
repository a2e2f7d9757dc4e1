// tputrain serve up, down and status: JetStream's (Saxml's in serve_saxml.cc), and the serve
// command's subcommands put together.
#include "tputrain/workflow/serve.h"
#include "commands/capacity_flags.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/serve_bucket.h"
#include "commands/serve_flags.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunUp(const UpFlags& flags, Context& context) {
  auto engine = ServeEngineOf(flags.engine, flags.model);
  if (!engine) return core::Fail(engine.error());
  if (auto takes = CheckEngineTakes(*engine, flags); !takes) return core::Fail(takes.error());
  if (*engine != serving::EngineKind::kJetStream) return RunEngineUp(*engine, flags, context);
  workflow::ServeUpRequest request;
  request.model = flags.model;
  request.disaggregated = flags.disaggregated;
  request.tpu_type = flags.tpu_type;
  request.checkpoint = flags.checkpoint;
  request.sets = flags.sets;
  request.dry_run = context.global.dry_run;
  SetCommonUp(flags, request);
  auto timeout = CheckUpFlags(flags);
  if (!timeout) return core::Fail(timeout.error());
  request.timeout = *timeout;
  if (auto template_name = workflow::ServeTemplateFor(flags.model, flags.disaggregated); !template_name) {
    return core::Fail(template_name.error());
  }
  if (!flags.checkpoint.empty() && flags.checkpoint.rfind("gs://", 0) != 0) {
    return core::Fail(core::Error::Usage("--checkpoint: expected gs://BUCKET/PATH, got '" + flags.checkpoint + "'"));
  }
  auto configuration = ServeConfiguration(context, {flags.bucket, flags.sets, flags.checkpoint, flags.ledger});
  if (!configuration) return core::Fail(configuration.error());
  request.configuration = std::move(*configuration);
  request.template_dirs = context.stack().TemplateDirs();
  request.ns = flags.access.ns;
  core::Result<workflow::ServeUpOutcome> up = core::Fail(core::Error::Internal("serve up did not run"));
  auto ran = WithServeUpEnv(flags, context, request.dry_run, [&](workflow::ServeUpEnv& env) -> core::Status {
    up = workflow::ServeUp(env, request);
    return up ? core::Status{} : core::Fail(up.error());
  });
  if (!ran) return core::Fail(ran.error());
  nlohmann::json json = {{"model", request.model},
                         {"template", up->template_name},
                         {"tpu_type", up->tpu_type},
                         {"namespace", up->ns},
                         {"leaderworkerset", up->leaderworkerset},
                         {"service", up->service},
                         {"endpoint", up->endpoint},
                         {"serving", up->serving},
                         {"waited_s", Rounded(Seconds(up->waited))},
                         {"applied", AppliedJson(up->applied, request.dry_run)},
                         {"dry_run", request.dry_run}};
  PrintResult(context, json, [&](std::ostream& out) {
    for (const auto& result : up->applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, request.dry_run) << "\n";
    }
    if (up->serving) {
      out << "Serving " << request.model << " on " << up->tpu_type << " (" << up->ns << "/" << up->leaderworkerset
          << ").\nAsk it:  tputrain serve generate -n " << up->ns << " --prompt \"...\"\nEndpoint: " << up->endpoint
          << "generate (through the API server)\n";
    }
  });
  return core::kExitOk;
}

core::Result<int> RunDown(const DownFlags& flags, Context& context) {
  auto engine = ServeEngineOf(flags.engine, flags.model);
  if (!engine) return core::Fail(engine.error());
  if (auto takes = CheckEngineTakes(*engine, flags); !takes) return core::Fail(takes.error());
  if (*engine == serving::EngineKind::kSaxml) return RunSaxmlDown(flags, context);
  if (*engine == serving::EngineKind::kVllm) return RunVllmDown(flags, context);
  auto template_name = workflow::ServeTemplateFor(flags.model, flags.disaggregated);
  if (!template_name) return core::Fail(template_name.error());
  auto confirmed = ConfirmDelete(context, flags.yes, "serve down",
                                 "Delete the serving objects of " + flags.model + " (node pools stay)?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto run = workflow::RecordedRunOf(context.stack(), {flags.ledger.run_id, flags.ledger.state_dir});
  if (!run) return core::Fail(run.error());
  // Not the run's bucket: what to delete comes from its ledger; values only for an older run's.
  workflow::ConfigurationLoader configuration = [&flags, &context] {
    return ServeConfiguration(context, {flags.bucket, flags.sets, "", flags.ledger, false});
  };
  workflow::Root& stack = context.stack();
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  workflow::RecordedDeleteEnv env = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, **connection, *run);
  workflow::ServeDownRequest request{flags.model,   flags.disaggregated,  flags.tpu_type,  flags.sets,
                                     configuration, stack.TemplateDirs(), flags.access.ns, context.global.dry_run};
  auto deleted = workflow::ServeDown(env, request);
  if (!deleted) return core::Fail(deleted.error());
  return PrintDeleted(context, *deleted);
}

}  // namespace

void SetupServeCommand(CLI::App& root, Context& context) {
  auto* serve = root.add_subcommand(
      "serve", "Serve a model on the cluster (JetStream on LeaderWorkerSet, Saxml on JobSet, vLLM), ask it");
  serve->require_subcommand(1);
  AddServeConvertCommand(*serve, context);
  AddServeGenerateCommand(*serve, context);
  AddSaxmlServeCommands(*serve, context);

  auto up_flags = std::make_shared<UpFlags>();
  auto* up = serve->add_subcommand("up", "Render, apply and wait until the model serves (JetStream, Saxml or vLLM)");
  up->add_option("--model", up_flags->model,
                 "Model to serve: llama3.1-405b, llama2-70b --disaggregated (JetStream), saxml-175b-test (Saxml); "
                 "vLLM: a model tputrain models lists, ORG/NAME or gs://BUCKET/DIR")
      ->required();
  AddEngineFlags(*up, *up_flags);
  up->add_flag("--disaggregated", up_flags->disaggregated, "Prefill and decode on separate slices (llama2-70b)");
  up->add_option("--tpu-type", up_flags->tpu_type, "TPU slice (default: the planned one, e.g. v6e-16)");
  up->add_option("--checkpoint", up_flags->checkpoint,
                 "gs:// path of the MaxText checkpoint (default: where serve's converter writes it)");
  AddServeBucketFlag(*up, up_flags->bucket);
  up->add_option("--set", up_flags->sets,
                 "NAME=VALUE template value, repeatable (tputrain render TEMPLATE --describe)");
  up->add_option("--timeout", up_flags->timeout, "Stop waiting after this long (default: by model size, 45m for 405B)");
  up->add_flag("--no-wait", up_flags->no_wait, "Return once applied");
  up->add_flag("--create-nodepool", up_flags->create_nodepool,
               "Create the slice's node pool(s) in the --cluster first (two with --disaggregated)");
  up->add_option("--nodepool", up_flags->nodepool,
                 "Name of the pool --create-nodepool makes (default jetstream-TPU_TYPE)");
  AddCapacityFlags(up, up_flags->capacity, true);
  up->add_option("--queue", up_flags->queue,
                 "Wait in this Kueue queue (tputrain queue create): the workload runs once the queue admits it");
  up->add_flag("--force", up_flags->force,
               "Take over objects of the same names that the run did not make (another workload's, another "
               "run's); serve down then deletes them. Without it serve up refuses them");
  up->add_flag("--install-operators", up_flags->install_operators,
               "Install LeaderWorkerSet (its pinned release) if the cluster lacks it");
  up->add_option("--lws-manifest", up_flags->lws_manifest, "LeaderWorkerSet manifest to install from (file or URL)")
      ->type_name("FILE");
  up->add_option("--jobset-manifest", up_flags->jobset_manifest, "Saxml: JobSet manifest to install from (file or URL)")
      ->type_name("FILE");
  up->add_option("--replicas", up_flags->replicas, "Saxml: model replicas, one slice each (default 2)");
  up->add_option("--model-path", up_flags->model_path,
                 "Saxml: the servable to publish (default: the preset's, e.g. ...lm_cloud.LmCloudSpmd175B32Test)");
  up->add_option("--sax-model", up_flags->sax_model, "Saxml: the model id to publish as (default /sax/test/spmd)");
  up->add_flag("--expose", up_flags->expose,
               "Saxml: keep the guide's LoadBalancer for sax-http and wait for its address (default: ClusterIP)");
  AddKubeAccessFlags(*up, up_flags->access);
  AddProvisionFlags(up, up_flags->ledger, /*waits=*/false);
  up->footer(
      "Examples:\n  tputrain serve up --model llama3.1-405b --cluster ray-tpu --location us-east5-b\n"
      "  tputrain serve up --model saxml-175b-test --cluster saxml-tpu --location us-east1 --install-operators");
  up->callback([up_flags, &context] { context.outcome = RunUp(*up_flags, context); });

  AddServeStatusCommand(*serve, context);

  auto down_flags = std::make_shared<DownFlags>();
  auto* down = serve->add_subcommand("down", "Delete the serving objects (node pools stay)");
  down->add_option("--model", down_flags->model, "The served model, as given to serve up")->required();
  down->add_option("--engine", down_flags->engine, "As given to serve up");
  down->add_option("--replicas", down_flags->replicas, "Saxml: as given to serve up");
  down->add_option("--sax-model", down_flags->sax_model,
                   "Saxml: the model id to unpublish first (default: the preset's)");
  down->add_flag("--disaggregated", down_flags->disaggregated, "As given to serve up");
  down->add_option("--tpu-type", down_flags->tpu_type, "As given to serve up");
  down->add_option("--set", down_flags->sets,
                   "As given to serve up; needed only when the run's ledger does not hold what it applied");
  AddServeBucketFlag(*down, down_flags->bucket);
  AddKubeAccessFlags(*down, down_flags->access);
  AddProvisionFlags(down, down_flags->ledger, /*waits=*/false);
  AddYesFlag(down, down_flags->yes);
  down->footer("Example:\n  tputrain serve down --model llama3.1-405b --cluster ray-tpu --location us-east5-b --yes");
  down->callback([down_flags, &context] { context.outcome = RunDown(*down_flags, context); });
}

}  // namespace tputrain::cli
