// tputrain serve convert: seed 002's checkpoint conversion as a Job on the cluster, followed until
// it ends (hours for 405B) and re-attachable, so `serve up` finds the checkpoint where it looks.
#include "tputrain/workflow/serve_convert.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/workflow/serve_bucket.h"

namespace tputrain::cli {
namespace {

struct ConvertFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::string model;
  std::string bucket;  // empty: ChooseServeBucket's
  std::vector<std::string> sets;
  bool follow = false;  // the default; the flag is there to say so in scripts
  bool no_follow = false;
};

nlohmann::json OutcomeJson(const ConvertFlags& flags, const workflow::ServeConvertOutcome& outcome, bool dry_run) {
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& result : outcome.applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"name", result.object.name},
                       {"action", k8s::ApplyActionName(result.action, dry_run)}});
  }
  return {{"model", flags.model},
          {"template", workflow::kConverterTemplate},
          {"namespace", outcome.ns},
          {"job", outcome.job},
          {"checkpoint", outcome.checkpoint},
          {"reattached", outcome.reattached},
          {"followed", outcome.followed},
          {"complete", outcome.complete},
          {"applied", applied},
          {"dry_run", dry_run}};
}

core::Result<int> RunConvert(const ConvertFlags& flags, Context& context) {
  workflow::ServeConvertRequest request;
  request.model = flags.model;
  request.sets = flags.sets;
  request.follow = !flags.no_follow;
  request.dry_run = context.global.dry_run;
  if (auto model = workflow::ConverterSetsFor(flags.model, ""); !model) return core::Fail(model.error());
  auto configuration = workflow::ServeConfiguration(
      context.stack(), {flags.bucket, flags.sets, "", {flags.ledger.run_id, flags.ledger.state_dir}});
  if (!configuration) return core::Fail(configuration.error());
  request.configuration = std::move(*configuration);
  workflow::Root& stack = context.stack();
  request.template_dirs = stack.TemplateDirs();
  // The run first: a ledger that cannot record refuses the command before any call.
  auto cluster =
      workflow::OpenRecordedApply(stack, flags.access, {flags.ledger.run_id, flags.ledger.state_dir}, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  request.ns = flags.access.ns;
  workflow::RecordedApplyEnv& apply = (*cluster)->env;
  auto& connection = (*cluster)->connection;
  // The converter's log is for people, as a followed job's output is for `submit --logs`: stderr,
  // so stdout keeps the one result (--format json).
  workflow::ServeConvertEnv env{stack.runtime(), apply,
                                [&context](std::string_view lines) { context.err << lines << std::flush; }};
  auto converted = workflow::ServeConvert(env, request);
  if (!converted) {
    core::Error error = converted.error();
    const std::string ns = flags.access.ns.empty() ? connection->client->default_namespace() : flags.access.ns;
    if (error.kind == core::ErrorKind::kCancelled) {
      std::string job = "checkpoint-converter";
      for (const auto& set : flags.sets) {
        if (set.rfind("JOB_NAME=", 0) == 0) job = set.substr(9);
      }
      error.message = "detached; job/" + job +
                      " keeps running on the cluster. Re-attach with the same command (it applies unchanged and "
                      "follows again), or: tputrain logs -f job/" +
                      job + " -n " + ns;
    }
    return core::Fail(error);
  }
  const auto& outcome = *converted;
  PrintResult(context, OutcomeJson(flags, outcome, request.dry_run), [&](std::ostream& out) {
    for (const auto& result : outcome.applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, request.dry_run) << "\n";
    }
    if (outcome.complete) {
      out << "Converted " << flags.model << ": the checkpoint is " << outcome.checkpoint << "\n(where serve up --model "
          << flags.model << " reads it by default)\n";
    } else if (!request.dry_run) {
      out << "The checkpoint will be " << outcome.checkpoint << " (where serve up --model " << flags.model
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
  convert->add_option("--model", flags->model, "Model whose checkpoint to make: llama3.1-405b, llama2-70b")->required();
  convert->add_option("--set", flags->sets,
                      "NAME=VALUE template value, repeatable: META_URL (Meta's signed download URL) is required "
                      "(tputrain render checkpoint-converter --describe)");
  auto* follow =
      convert->add_flag("--follow", flags->follow, "Follow the converter's log until the Job ends (default)");
  convert->add_flag("--no-follow", flags->no_follow, "Return once the Job is applied")->excludes(follow);
  AddServeBucketFlag(*convert, flags->bucket);
  AddKubeAccessFlags(*convert, flags->access);
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
