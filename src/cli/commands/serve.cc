// tputrain serve up (every engine: one request, one workflow call), and the serve command's
// subcommands put together.
#include "commands/serve_flags.h"
#include "flags/capacity_flags.h"
#include "output/serve_output.h"

namespace tputrain::cli {
namespace {

struct UpOptions {
  workflow::ServeUpRequest request;
  bool no_wait = false;
  ProvisionFlags ledger;  // --run, --state-dir
};

core::Result<int> RunUp(UpOptions& options, Context& context) {
  workflow::ServeUpRequest& request = options.request;
  request.wait = !options.no_wait;
  request.access.ledger = {options.ledger.run_id, options.ledger.state_dir};
  request.access.dry_run = context.global.dry_run;
  auto plan = workflow::PlanServeUp(context.stack(), request);
  if (!plan) return core::Fail(plan.error());
  auto up = workflow::ServeUp(context.stack(), *plan);
  if (!up) return core::Fail(up.error());
  PrintServeUp(context, *up);
  return core::kExitOk;
}

}  // namespace

void AddServeBucketFlag(CLI::App& command, std::string& bucket) {
  command
      .add_option("--bucket", bucket,
                  "Bucket of the checkpoint and scratch files (BUCKET); default: the configuration's, else "
                  "--checkpoint's, else the one bucket the run created")
      ->type_name("NAME");
}

void AddServeUpCommand(CLI::App& serve, Context& context) {
  auto options = std::make_shared<UpOptions>();
  workflow::ServeUpRequest& request = options->request;
  auto* up = serve.add_subcommand("up", "Render, apply and wait until the model serves (JetStream, Saxml or vLLM)");
  up->add_option("--model", request.model,
                 "Model to serve: llama3.1-405b, llama2-70b --disaggregated (JetStream), saxml-175b-test (Saxml); "
                 "vLLM: a model tputrain models lists, ORG/NAME or gs://BUCKET/DIR")
      ->required();
  up->add_option("--engine", request.engine, "jetstream, saxml or vllm (default: the model's)");
  up->add_option("--hf-token-file", request.hf_token_file,
                 "vLLM: a file holding a Hugging Face token, for gated models; it becomes a Secret, never printed");
  up->add_option("--hf-config", request.hf_config,
                 "vLLM: the checkpoint's config.json, to size the slice when --tpu-type is not given")
      ->type_name("FILE");
  up->add_flag("--disaggregated", request.disaggregated, "Prefill and decode on separate slices (llama2-70b)");
  up->add_option("--tpu-type", request.tpu_type, "TPU slice (default: the planned one, e.g. v6e-16)");
  up->add_option("--checkpoint", request.checkpoint,
                 "gs:// path of the MaxText checkpoint (default: where serve's converter writes it)");
  AddServeBucketFlag(*up, request.bucket);
  up->add_option("--set", request.sets, "NAME=VALUE template value, repeatable (tputrain render TEMPLATE --describe)");
  up->add_option("--timeout", request.timeout, "Stop waiting after this long (default: by model size, 45m for 405B)");
  up->add_flag("--no-wait", options->no_wait, "Return once applied");
  up->add_flag("--create-nodepool", request.create_nodepool,
               "Create the slice's node pool(s) in the --cluster first (two with --disaggregated)");
  up->add_option("--nodepool", request.nodepool,
                 "Name of the pool --create-nodepool makes (default jetstream-TPU_TYPE)");
  AddCapacityFlags(up, request.capacity, true);
  up->add_option("--queue", request.queue,
                 "Wait in this Kueue queue (tputrain queue create): the workload runs once the queue admits it");
  up->add_flag("--force", request.force,
               "Take over objects of the same names that the run did not make (another workload's, another "
               "run's); serve down then deletes them. Without it serve up refuses them");
  up->add_flag("--install-operators", request.install_operators,
               "Install LeaderWorkerSet (its pinned release) if the cluster lacks it");
  up->add_option("--lws-manifest", request.access.lws_manifest,
                 "LeaderWorkerSet manifest to install from (file or URL)")
      ->type_name("FILE");
  up->add_option("--jobset-manifest", request.access.jobset_manifest,
                 "Saxml: JobSet manifest to install from (file or URL)")
      ->type_name("FILE");
  up->add_option("--replicas", request.replicas, "Saxml: model replicas, one slice each (default 2)");
  up->add_option("--model-path", request.model_path,
                 "Saxml: the servable to publish (default: the preset's, e.g. ...lm_cloud.LmCloudSpmd175B32Test)");
  up->add_option("--sax-model", request.sax_model, "Saxml: the model id to publish as (default /sax/test/spmd)");
  up->add_flag("--expose", request.expose,
               "Saxml: keep the guide's LoadBalancer for sax-http and wait for its address (default: ClusterIP)");
  AddKubeAccessFlags(*up, request.access.access);
  AddProvisionFlags(up, options->ledger, /*waits=*/false);
  up->footer(
      "Examples:\n  tputrain serve up --model llama3.1-405b --cluster ray-tpu --location us-east5-b\n"
      "  tputrain serve up --model saxml-175b-test --cluster saxml-tpu --location us-east1 --install-operators\n\n"
      "--dry-run shows every object; with a cluster at hand, the API server validates each apply too");
  up->callback([options, &context] { context.outcome = RunUp(*options, context); });
}

void SetupServeCommand(CLI::App& root, Context& context) {
  auto* serve = root.add_subcommand(
      "serve", "Serve a model on the cluster (JetStream on LeaderWorkerSet, Saxml on JobSet, vLLM), ask it");
  serve->require_subcommand(1);
  AddServeConvertCommand(*serve, context);
  AddServeGenerateCommand(*serve, context);
  AddSaxmlServeCommands(*serve, context);
  AddServeUpCommand(*serve, context);
  AddServeStatusCommand(*serve, context);
  AddServeDownCommand(*serve, context);
}

}  // namespace tputrain::cli
