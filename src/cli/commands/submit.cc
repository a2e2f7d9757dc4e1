#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "flags/ray_flags.h"
#include "output/job_output.h"
#include "output/output.h"
#include "output/submit_plan.h"
#include "tputrain/workflow/submit_command.h"

namespace tputrain::cli {
namespace {

struct SubmitOptions {
  workflow::SubmitCommand command;
  bool no_wait = false;
  bool logs = false;
  ProvisionFlags ledger;                      // --run, --state-dir
  std::vector<CLI::Option*> cluster_options;  // given one: the job goes to a RayCluster
  CLI::Option* address_option = nullptr;

  // The command as typed: which of the exclusive flags were given, the ledger, --no-wait, --dry-run.
  workflow::SubmitCommand Given(bool dry_run) const {
    workflow::SubmitCommand given = command;
    for (const auto* option : cluster_options) {
      if (option->count() > 0 && given.cluster_flag.empty()) given.cluster_flag = option->get_name();
    }
    given.address_given = address_option->count() > 0;
    given.reach.ledger = {ledger.run_id, ledger.state_dir};
    given.wait = !no_wait;
    given.dry_run = dry_run;
    return given;
  }
};

void PrintTail(Context& context, const workflow::SubmitOutcome& outcome) {
  if (outcome.log_tail.empty()) return;
  context.err << "Last lines of the job's log (all of it: tputrain job logs " << outcome.submission_id << "):\n";
  for (const auto& line : outcome.log_tail) context.err << "  " << line << "\n";
}

core::Result<int> RunSubmit(const SubmitOptions& options, Context& context) {
  maxtext::ProgressPrinter printer(context.reporter(), context.stack().clock(), context.stderr_is_tty);
  workflow::SubmitCallbacks callbacks;
  callbacks.on_progress = [&](const maxtext::ProgressState& state) { printer.Update(state); };
  if (options.logs) callbacks.on_log = [&](std::string_view text) { context.err << text << std::flush; };
  auto submitted = workflow::Submit(context.stack(), options.Given(context.global.dry_run), std::move(callbacks));
  if (!submitted) return core::Fail(submitted.error());
  if (submitted->plan) {
    PrintSubmitPlan(context, *submitted->plan);
    return core::kExitOk;
  }
  const auto& outcome = submitted->outcome;
  if (options.no_wait) {
    PrintResult(context, submitted->json, [&](std::ostream& out) { out << outcome.submission_id << "\n"; });
    return core::kExitOk;
  }
  printer.Flush();
  const ray::JobDetails& details = *outcome.job;
  const std::string message = FirstLine(details.message);
  context.reporter().Done("training", "job '" + outcome.submission_id + "' " + details.status_text);
  if (details.status != ray::JobStatus::kSucceeded) {
    if (!options.logs) PrintTail(context, outcome);
    if (!message.empty())
      context.err << "Job '" << outcome.submission_id << "' " << details.status_text << ": " << message << "\n";
  }
  if (outcome.summary.nan_loss) context.reporter().Warn("the loss became NaN");
  PrintResult(context, submitted->json, [&](std::ostream& out) { out << maxtext::FormatSummary(outcome.summary); });
  return ray::ExitCodeForJob(details.status);
}

}  // namespace

void SetupSubmitCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<SubmitOptions>();
  auto& command = options->command;
  auto* submit = root.add_subcommand("submit", "Train a model with MaxText as a Ray job, follow it, and sum it up");
  submit->add_option("--model", command.spec.model, "A MaxText model_name (tputrain models), or maxtext-cpu-smoke")
      ->required();
  submit->add_option("--tpu-type", command.spec.tpu_type,
                     "TPU slice the Ray cluster runs on, e.g. v6e-16 (default: the smallest that fits, as `plan`)");
  submit->add_option("--steps", command.steps, "Training steps (default: the model's, else the tutorial's 100)");
  submit->add_option("--set", command.spec.sets, "MaxText override KEY=VALUE, applied last (repeatable)");
  submit->add_option("--env", command.spec.env,
                     "Environment variable KEY=VALUE for the job (repeatable; RAY_DEDUP_LOGS=0 unless given)");
  submit->add_option("--run-name", command.spec.run_name, "MaxText run_name (default: <model>-<UTC time>)");
  submit
      ->add_option("--output-dir", command.spec.output_dir,
                   "MaxText base_output_directory on the cluster (default: /data/, the bucket mount; CPU presets: "
                   "/tmp/tputrain-runs/)")
      ->type_name("DIR");
  submit->add_option("--launcher", command.spec.launcher,
                     "Command that receives MaxText's KEY=VALUE arguments (default: the training tutorial's "
                     "'python /app/maxtext_ray_trainer.py <base.yml>'; CPU presets: 'python -m "
                     "maxtext.trainers.pre_train.train')");
  submit
      ->add_option("--working-dir", command.spec.working_dir,
                   "Local directory to upload as the job's working_dir (e.g. your own trainer), or a URI")
      ->type_name("DIR");
  submit->add_option("--submission-id", command.spec.submission_id, "Ray job id (default: generated)");
  submit->add_flag("--no-wait", options->no_wait, "Print the job id and return once it is submitted");
  submit->add_flag("--logs", options->logs, "Also copy the job's output to stderr as it comes");
  AddRayConnectionFlags(submit, command.reach.connection);
  AddTpuVmRayFlag(*submit, command.reach.tpu_vm);
  options->address_option = submit->get_option("--address");
  AddProvisionFlags(submit, options->ledger, /*waits=*/false);

  auto& ray_cluster = command.raycluster;
  auto& cluster_options = options->cluster_options;
  AddKubeAccessFlags(*submit, command.reach.access);
  for (const char* name : {"--kubeconfig", "--context", "--namespace", "--cluster"}) {
    try {
      cluster_options.push_back(submit->get_option(name));
    } catch (const CLI::OptionNotFound&) {
      // --cluster comes with GKE access; without it the kubeconfig flags are the way in.
    }
  }
  cluster_options.push_back(submit->add_option(
      "--raycluster", ray_cluster.name,
      "RayCluster to apply (or reuse) and run the job on (default: <model>-<tpu type>, or <model> for CPU presets)"));
  cluster_options.push_back(
      submit->add_option("--image", ray_cluster.image, "Container image of the RayCluster's pods (Ray and MaxText)"));
  cluster_options.push_back(submit->add_option(
      "--raycluster-template", ray_cluster.template_name,
      "Template the RayCluster is rendered from (default: raycluster-maxtext; CPU presets: raycluster-cpu)"));
  cluster_options.push_back(submit->add_option(
      "--raycluster-set", ray_cluster.sets,
      "Template value NAME=VALUE, e.g. KSA_NAME=ray-ksa (repeatable; `tputrain render TEMPLATE --describe`)"));
  cluster_options.push_back(
      submit->add_option("--raycluster-values", ray_cluster.values_files, "YAML file of template values (repeatable)")
          ->type_name("FILE"));
  cluster_options.push_back(
      submit
          ->add_option("--capacity", command.capacity,
                       "Which TPU pools the pods select: on-demand (default: any pool of the slice), spot or "
                       "flex-start (GKE's node labels; a flex-start pool grows when they wait)")
          ->check(CLI::IsMember({"on-demand", "spot", "flex-start"})));
  cluster_options.push_back(
      submit->add_option("--queue", ray_cluster.queue, "Wait in this Kueue queue (queue create)"));
  cluster_options.push_back(submit->add_option("--ready-timeout", command.ready_timeout,
                                               "How long the RayCluster may take to be ready (default 20m)"));
  submit->footer(
      "Examples:\n"
      "  tputrain submit --model maxtext-cpu-smoke --address http://127.0.0.1:8265\n"
      "  tputrain submit --model llama3-8b --kubeconfig ~/.kube/config --image IMAGE --raycluster-set KSA_NAME=ksa\n"
      "  tputrain submit --model llama3-8b --tpu-type v6e-16 --steps 100 --dry-run\n"
      "With cluster flags the RayCluster is rendered for the slice, applied, waited for and reused by later\n"
      "submits; the job reaches its head through the API server. --address and the cluster flags are exclusive.\n"
      "Progress goes to stderr (a live bar on a terminal); the summary goes to stdout (--format json).\n"
      "Exit codes: 0 SUCCEEDED, 1 FAILED, 3 STOPPED, 2 usage, 130 detached with Ctrl-C.");
  submit->callback([options, &context] { context.outcome = RunSubmit(*options, context); });
}

}  // namespace tputrain::cli
