#include "commands/commands.h"
#include "commands/ray_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/clock.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/workflow/submit.h"

namespace tputrain::cli {
namespace {

struct SubmitOptions {
  workflow::SubmitSpec spec;
  ray::ConnectionFlags connection;
  bool no_wait = false;
  bool logs = false;
};

void PrintTail(Context& context, const workflow::SubmitOutcome& outcome) {
  if (outcome.log_tail.empty()) return;
  context.err << "Last lines of the job's log (all of it: tputrain job logs " << outcome.submission_id << "):\n";
  for (const auto& line : outcome.log_tail) context.err << "  " << line << "\n";
}

core::Result<int> RunSubmit(const SubmitOptions& options, Context& context) {
  core::SystemClock clock;
  auto job = workflow::BuildMaxTextJob(options.spec, clock);
  if (!job) return core::Fail(job.error());
  if (context.global.dry_run) {
    auto description = workflow::DescribeJob(*job);
    PrintResult(context, description, [&](std::ostream& out) { out << description.dump(2) << "\n"; });
    return core::kExitOk;
  }
  auto client_options = ResolveRayClient(options.connection, context);
  if (!client_options) return core::Fail(client_options.error());
  http::CurlTransport transport;
  core::RealSleeper sleeper(context.cancel);
  ray::JobsClient client(transport, sleeper, std::move(*client_options));

  maxtext::ProgressPrinter printer(context.reporter(), clock, context.stderr_is_tty);
  workflow::SubmitCallbacks callbacks;
  callbacks.on_submitted = [&](const std::string& id, bool reattached) {
    std::string where = job->slice ? job->slice->accelerator_type : std::string("CPU");
    context.reporter().Info("Job '" + id + "' " + (reattached ? "was already submitted; re-attached" : "submitted") +
                            ": " + job->preset.name + " on " + where + ", run " + job->run_name + ", " +
                            std::to_string(job->steps) + " steps");
  };
  callbacks.on_progress = [&](const maxtext::ProgressState& state) { printer.Update(state); };
  if (options.logs) callbacks.on_log = [&](std::string_view text) { context.err << text << std::flush; };
  auto follow = [&context](ray::JobsClient& c, const std::string& id, const std::function<void(std::string_view)>& on_text) {
    return FollowJob(context, c, id, on_text);
  };

  auto outcome = workflow::SubmitMaxText(client, *job, !options.no_wait, follow, callbacks);
  if (!outcome) return core::Fail(outcome.error());
  if (options.no_wait) {
    PrintResult(context, workflow::OutcomeToJson(*job, *outcome),
                [&](std::ostream& out) { out << outcome->submission_id << "\n"; });
    return core::kExitOk;
  }
  printer.Flush();
  const ray::JobDetails& details = *outcome->job;
  std::string message = details.message ? details.message->substr(0, details.message->find('\n')) : "";
  context.reporter().Done("training", "job '" + outcome->submission_id + "' " + details.status_text);
  if (details.status != ray::JobStatus::kSucceeded) {
    if (!options.logs) PrintTail(context, *outcome);
    if (!message.empty()) context.err << "Job '" << outcome->submission_id << "' " << details.status_text << ": "
                                      << message.substr(0, message.find(", last available logs")) << "\n";
  }
  if (outcome->summary.nan_loss) context.reporter().Warn("the loss became NaN");
  PrintResult(context, workflow::OutcomeToJson(*job, *outcome),
              [&](std::ostream& out) { out << maxtext::FormatSummary(outcome->summary); });
  return ray::ExitCodeForJob(details.status);
}

}  // namespace

void SetupSubmitCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<SubmitOptions>();
  auto* submit = root.add_subcommand("submit", "Train a model preset with MaxText as a Ray job, follow it, and sum it up");
  submit->add_option("--model", options->spec.model, "Model preset, e.g. llama3-8b or maxtext-cpu-smoke")->required();
  submit->add_option("--tpu-type", options->spec.tpu_type,
                     "TPU slice the Ray cluster runs on, e.g. v6e-16 (default: the smallest that fits, as `plan`)");
  submit->add_option("--steps", options->spec.steps, "Training steps (default: the preset's, else 100 as seed 001)");
  submit->add_option("--set", options->spec.sets, "MaxText override KEY=VALUE, applied last (repeatable)");
  submit->add_option("--env", options->spec.env,
                     "Environment variable KEY=VALUE for the job (repeatable; RAY_DEDUP_LOGS=0 unless given)");
  submit->add_option("--run-name", options->spec.run_name, "MaxText run_name (default: <model>-<UTC time>)");
  submit->add_option("--output-dir", options->spec.output_dir,
                     "MaxText base_output_directory on the cluster (default: /data/, the bucket mount; CPU presets: "
                     "/tmp/tputrain-runs/)");
  submit->add_option("--launcher", options->spec.launcher,
                     "Command that receives MaxText's KEY=VALUE arguments (default: seed 001's "
                     "'python /app/maxtext_ray_trainer.py <base.yml>'; CPU presets: 'python -m "
                     "maxtext.trainers.pre_train.train')");
  submit->add_option("--working-dir", options->spec.working_dir,
                     "Local directory to upload as the job's working_dir (e.g. your own trainer), or a URI");
  submit->add_option("--submission-id", options->spec.submission_id, "Ray job id (default: generated)");
  submit->add_flag("--no-wait", options->no_wait, "Print the job id and return once it is submitted");
  submit->add_flag("--logs", options->logs, "Also copy the job's output to stderr as it comes");
  AddRayConnectionFlags(submit, options->connection);
  submit->footer(
      "Examples:\n"
      "  tputrain submit --model maxtext-cpu-smoke --address http://127.0.0.1:8265\n"
      "  tputrain submit --model llama3-8b --tpu-type v6e-16 --steps 100 --dry-run\n"
      "Progress goes to stderr (a live bar on a terminal); the summary goes to stdout (--format json).\n"
      "Exit codes: 0 SUCCEEDED, 1 FAILED, 3 STOPPED, 2 usage, 130 detached with Ctrl-C.");
  submit->callback([options, &context] { context.outcome = RunSubmit(*options, context); });
}

}  // namespace tputrain::cli
