// tputrain serve down (every engine): what the run's serve up applied for the model, deleted
// after one question; Saxml's model unpublished first.
#include "commands/serve_flags.h"
#include "output/serve_output.h"

namespace tputrain::cli {
namespace {

struct DownOptions {
  workflow::ServeDownRequest request;
  ProvisionFlags ledger;  // --run, --state-dir
  bool yes = false;
};

core::Result<int> RunDown(DownOptions& options, Context& context) {
  workflow::ServeDownRequest& request = options.request;
  request.ledger = {options.ledger.run_id, options.ledger.state_dir};
  request.dry_run = context.global.dry_run;
  auto plan = workflow::PlanServeDown(request);
  if (!plan) return core::Fail(plan.error());
  auto confirmed = ConfirmDelete(context, options.yes, "serve down", plan->question);
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto down = workflow::ServeDown(context.stack(), *plan);
  if (!down) return core::Fail(down.error());
  PrintServeDown(context, *down);
  return core::kExitOk;
}

}  // namespace

void AddServeDownCommand(CLI::App& serve, Context& context) {
  auto options = std::make_shared<DownOptions>();
  workflow::ServeDownRequest& request = options->request;
  auto* down = serve.add_subcommand("down", "Delete the serving objects (node pools stay)");
  down->add_option("--model", request.model, "The served model, as given to serve up")->required();
  down->add_option("--engine", request.engine, "As given to serve up");
  down->add_option("--replicas", request.replicas, "Saxml: as given to serve up");
  down->add_option("--sax-model", request.sax_model, "Saxml: the model id to unpublish first (default: the preset's)");
  down->add_flag("--disaggregated", request.disaggregated, "As given to serve up");
  down->add_option("--tpu-type", request.tpu_type, "As given to serve up");
  down->add_option("--set", request.sets,
                   "As given to serve up; needed only when the run's ledger does not hold what it applied");
  AddServeBucketFlag(*down, request.bucket);
  AddKubeAccessFlags(*down, request.access);
  AddProvisionFlags(down, options->ledger, /*waits=*/false);
  AddYesFlag(down, options->yes);
  down->footer("Example:\n  tputrain serve down --model llama3.1-405b --cluster ray-tpu --location us-east5-b --yes");
  down->callback([options, &context] { context.outcome = RunDown(*options, context); });
}

}  // namespace tputrain::cli
