// tputrain serve convert: seed 002's checkpoint conversion as a Job on the cluster, followed until
// it ends (hours for 405B) and re-attachable, so `serve up` finds the checkpoint where it looks.
#include "tputrain/workflow/serve_convert.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/serve_flags.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

// serve convert's flags: the request's, the run ledger's (AddProvisionFlags), and --no-follow.
struct ConvertFlags {
  workflow::ServeConvertFlags request;
  ProvisionFlags ledger;  // --run, --state-dir
  bool follow = false;    // the default; the flag is there to say so in scripts
  bool no_follow = false;
};

core::Result<int> RunConvert(const ConvertFlags& flags, Context& context) {
  auto request = flags.request;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  request.follow = !flags.no_follow;
  request.dry_run = context.global.dry_run;
  // The converter's log is for people, as a followed job's output is for `submit --logs`: stderr,
  // so stdout keeps the one result (--format json).
  auto converted = workflow::ServeConvert(context.stack(), request,
                                          [&context](std::string_view lines) { context.err << lines << std::flush; });
  if (!converted) return core::Fail(converted.error());
  const auto& outcome = *converted;
  PrintResult(context, workflow::ToJson(outcome), [&](std::ostream& out) {
    for (const auto& result : outcome.applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, request.dry_run) << "\n";
    }
    if (outcome.complete) {
      out << "Converted " << request.model << ": the checkpoint is " << outcome.checkpoint
          << "\n(where serve up --model " << request.model << " reads it by default)\n";
    } else if (!request.dry_run) {
      out << "The checkpoint will be " << outcome.checkpoint << " (where serve up --model " << request.model
          << " reads it by default).\nFollow the conversion with the same command, or: tputrain logs -f job/"
          << outcome.job << " -n " << outcome.ns << "\n";
    }
  });
  return core::kExitOk;
}

}  // namespace

void AddServeConvertCommand(CLI::App& serve, Context& context) {
  auto flags = std::make_shared<ConvertFlags>();
  auto* convert = serve.add_subcommand(
      "convert", "Convert Meta's Llama weights to the quantized MaxText checkpoint serve up reads (a Job, hours)");
  convert->add_option("--model", flags->request.model, "Model whose checkpoint to make: llama3.1-405b, llama2-70b")
      ->required();
  convert->add_option("--set", flags->request.sets,
                      "NAME=VALUE template value, repeatable: META_URL (Meta's signed download URL) is required "
                      "(tputrain render checkpoint-converter --describe)");
  auto* follow =
      convert->add_flag("--follow", flags->follow, "Follow the converter's log until the Job ends (default)");
  convert->add_flag("--no-follow", flags->no_follow, "Return once the Job is applied")->excludes(follow);
  AddServeBucketFlag(*convert, flags->request.bucket);
  AddKubeAccessFlags(*convert, flags->request.access);
  AddProvisionFlags(convert, flags->ledger, /*waits=*/false);
  convert->footer(
      "The Job runs on the node pool CONVERTER_NODE_POOL names (default m1-pool; for 405B: tputrain nodepool create\n"
      "m1-pool --machine-type m1-ultramem-160 --disk-size 3000). Its log goes to stderr; the result to stdout.\n"
      "Ctrl-C detaches (exit 130): the Job goes on, and the same command follows it again.\n"
      "Exit codes: 0 the Job completed (or --no-follow: applied), 1 it failed (with its last log lines), 2 usage.\n"
      "Example:\n"
      "  tputrain serve convert --model llama3.1-405b --cluster jetstream --location us-east5 \\\n"
      "      --set META_URL=\"$META_URL\"");
  convert->callback([flags, &context] { context.outcome = RunConvert(*flags, context); });
}

}  // namespace tputrain::cli
