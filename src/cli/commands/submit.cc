#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "flags/ray_flags.h"
#include "output/output.h"
#include "output/submit_plan.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/submit_flow.h"
#include "tputrain/workflow/submit_reach.h"
#include "tputrain/workflow/template_values.h"

namespace tputrain::cli {
namespace {

// Far beyond any training run, and well inside what MaxText and Python integers take.
constexpr int64_t kMaxSteps = 1'000'000'000'000;

struct SubmitOptions {
  workflow::SubmitSpec spec;
  std::optional<std::string> steps;  // core::ParseCount's grammar, into spec.steps
  ray::ConnectionFlags connection;
  workflow::TpuVmRayTarget tpu_vm;
  bool no_wait = false;
  bool logs = false;
  ProvisionFlags ledger;  // --run, --state-dir
  // On a Kubernetes cluster (any of these flags): the RayCluster tputrain applies and reuses.
  KubeAccessFlags access;
  workflow::RayClusterRequest raycluster;
  std::string ready_timeout = "20m";
  std::string capacity = "on-demand";
  std::vector<CLI::Option*> cluster_options;  // given one: the job goes to a RayCluster
  CLI::Option* address_option = nullptr;

  const CLI::Option* ClusterFlagGiven() const {
    for (const auto* option : cluster_options) {
      if (option->count() > 0) return option;
    }
    return nullptr;
  }
};

void PrintTail(Context& context, const workflow::SubmitOutcome& outcome) {
  if (outcome.log_tail.empty()) return;
  context.err << "Last lines of the job's log (all of it: tputrain job logs " << outcome.submission_id << "):\n";
  for (const auto& line : outcome.log_tail) context.err << "  " << line << "\n";
}

core::Result<workflow::SubmitRequest> RequestOf(const SubmitOptions& options, Context& context) {
  const CLI::Option* cluster_flag = options.ClusterFlagGiven();
  if (!options.tpu_vm.name.empty() && (cluster_flag != nullptr || options.address_option->count() > 0)) {
    return core::Fail(core::Error::Usage(
        "--tpu-vm and " + (cluster_flag != nullptr ? cluster_flag->get_name() : std::string("--address")) +
        " are exclusive: the job runs on the TPU VM's own Ray"));
  }
  if (cluster_flag != nullptr && options.address_option->count() > 0) {
    return core::Fail(core::Error::Usage("--address and " + cluster_flag->get_name() +
                                         " are exclusive: pass --address for a Ray you reach directly, or the "
                                         "cluster flags for a RayCluster tputrain applies"));
  }
  workflow::SubmitRequest request{options.spec, std::nullopt, !options.no_wait, context.global.dry_run};
  if (options.steps) {
    auto steps = core::ParseCount("--steps", *options.steps, kMaxSteps);
    if (!steps) return core::Fail(steps.error());
    request.spec.steps = *steps;
  }
  if (cluster_flag == nullptr) return request;
  auto timeout = core::ParseDuration("--ready-timeout", options.ready_timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto settings = context.settings();
  if (!settings) return core::Fail(settings.error());
  request.raycluster = options.raycluster;
  request.raycluster->ready_timeout = *timeout;
  request.raycluster->capacity = *catalog::ParseCapacityMode(options.capacity);  // checked by the flag
  request.raycluster->ns = options.access.ns;
  request.raycluster->template_dirs = context.stack().TemplateDirs();
  request.raycluster->configuration = workflow::ConfigurationValues(*settings);
  return request;
}

core::Result<int> RunSubmit(const SubmitOptions& options, Context& context) {
  auto request = RequestOf(options, context);
  if (!request) return core::Fail(request.error());
  workflow::SubmitConnections kept;
  workflow::SubmitEnv env = workflow::SubmitEnvOf(
      context.stack(),
      {options.connection, options.access, {options.ledger.run_id, options.ledger.state_dir}, options.tpu_vm}, kept);
  maxtext::ProgressPrinter printer(context.reporter(), context.stack().clock(), context.stderr_is_tty);
  env.callbacks.on_progress = [&](const maxtext::ProgressState& state) { printer.Update(state); };
  if (options.logs) env.callbacks.on_log = [&](std::string_view text) { context.err << text << std::flush; };
  auto submitted = workflow::Submit(env, *request);
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
  std::string message = details.message ? details.message->substr(0, details.message->find('\n')) : "";
  context.reporter().Done("training", "job '" + outcome.submission_id + "' " + details.status_text);
  if (details.status != ray::JobStatus::kSucceeded) {
    if (!options.logs) PrintTail(context, outcome);
    if (!message.empty())
      context.err << "Job '" << outcome.submission_id << "' " << details.status_text << ": "
                  << message.substr(0, message.find(", last available logs")) << "\n";
  }
  if (outcome.summary.nan_loss) context.reporter().Warn("the loss became NaN");
  PrintResult(context, submitted->json, [&](std::ostream& out) { out << maxtext::FormatSummary(outcome.summary); });
  return ray::ExitCodeForJob(details.status);
}

}  // namespace

void SetupSubmitCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<SubmitOptions>();
  auto* submit = root.add_subcommand("submit", "Train a model with MaxText as a Ray job, follow it, and sum it up");
  submit->add_option("--model", options->spec.model, "A MaxText model_name (tputrain models), or maxtext-cpu-smoke")
      ->required();
  submit->add_option("--tpu-type", options->spec.tpu_type,
                     "TPU slice the Ray cluster runs on, e.g. v6e-16 (default: the smallest that fits, as `plan`)");
  submit->add_option("--steps", options->steps, "Training steps (default: the model's, else the tutorial's 100)");
  submit->add_option("--set", options->spec.sets, "MaxText override KEY=VALUE, applied last (repeatable)");
  submit->add_option("--env", options->spec.env,
                     "Environment variable KEY=VALUE for the job (repeatable; RAY_DEDUP_LOGS=0 unless given)");
  submit->add_option("--run-name", options->spec.run_name, "MaxText run_name (default: <model>-<UTC time>)");
  submit
      ->add_option("--output-dir", options->spec.output_dir,
                   "MaxText base_output_directory on the cluster (default: /data/, the bucket mount; CPU presets: "
                   "/tmp/tputrain-runs/)")
      ->type_name("DIR");
  submit->add_option("--launcher", options->spec.launcher,
                     "Command that receives MaxText's KEY=VALUE arguments (default: the training tutorial's "
                     "'python /app/maxtext_ray_trainer.py <base.yml>'; CPU presets: 'python -m "
                     "maxtext.trainers.pre_train.train')");
  submit
      ->add_option("--working-dir", options->spec.working_dir,
                   "Local directory to upload as the job's working_dir (e.g. your own trainer), or a URI")
      ->type_name("DIR");
  submit->add_option("--submission-id", options->spec.submission_id, "Ray job id (default: generated)");
  submit->add_flag("--no-wait", options->no_wait, "Print the job id and return once it is submitted");
  submit->add_flag("--logs", options->logs, "Also copy the job's output to stderr as it comes");
  AddRayConnectionFlags(submit, options->connection);
  AddTpuVmRayFlag(*submit, options->tpu_vm);
  options->address_option = submit->get_option("--address");
  AddProvisionFlags(submit, options->ledger, /*waits=*/false);

  auto& ray_cluster = options->raycluster;
  auto& cluster_options = options->cluster_options;
  AddKubeAccessFlags(*submit, options->access);
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
          ->add_option("--capacity", options->capacity,
                       "Which TPU pools the pods select: on-demand (default: any pool of the slice), spot or "
                       "flex-start (GKE's node labels; a flex-start pool grows when they wait)")
          ->check(CLI::IsMember({"on-demand", "spot", "flex-start"})));
  cluster_options.push_back(
      submit->add_option("--queue", ray_cluster.queue, "Wait in this Kueue queue (queue create)"));
  cluster_options.push_back(submit->add_option("--ready-timeout", options->ready_timeout,
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
