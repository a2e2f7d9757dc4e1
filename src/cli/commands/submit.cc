#include <filesystem>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/redact.h"
#include "stack.h"
#include "tputrain/render/render.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/submit.h"
#include "tputrain/workflow/submit_cluster.h"

namespace tputrain::cli {
namespace {

struct SubmitOptions {
  workflow::SubmitSpec spec;
  ray::ConnectionFlags connection;
  bool no_wait = false;
  bool logs = false;
  ProvisionFlags ledger;
  // On a Kubernetes cluster (any of these flags): the RayCluster tputrain applies and reuses.
  KubeAccessFlags access;
  workflow::RayClusterRequest raycluster;
  std::string ready_timeout = "20m";
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

// The RayCluster template's inputs that come from the configuration and the install.
core::Status CompleteRayClusterRequest(SubmitOptions& options, Context& context) {
  auto timeout = core::ParseDuration("--ready-timeout", options.ready_timeout);
  if (!timeout) return core::Fail(timeout.error());
  options.raycluster.ready_timeout = *timeout;
  options.raycluster.ns = options.access.ns;
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  options.raycluster.template_dirs = render::BuiltinTemplateDirs(context.env, error ? "" : executable.string());
  auto settings = context.settings();
  if (!settings) return core::Fail(settings.error());
  for (auto [key, name] : {std::pair{"project", "PROJECT_ID"}, {"location", "LOCATION"}, {"cluster", "CLUSTER_NAME"},
                           {"bucket", "BUCKET"}}) {
    if (auto value = settings->Get(key); value && !value->empty()) options.raycluster.configuration[name] = *value;
  }
  if (auto location = options.raycluster.configuration.find("LOCATION");
      location != options.raycluster.configuration.end()) {
    options.raycluster.configuration["REGION"] = render::RegionOf(location->second);
  }
  return {};
}

core::Result<workflow::LedgerRecorder> OpenLedger(const SubmitOptions& options, Context& context) {
  state::LedgerStore& store = context.stack().Ledger(options.ledger.state_dir);
  auto run = store.ResolveRun(options.ledger.run_id, context.env, /*create=*/true);
  if (!run) return core::Fail(run.error());
  return workflow::LedgerRecorder{&store, *run};
}

void PrintPlan(Context& context, const nlohmann::json& plan) {
  PrintResult(context, plan, [&](std::ostream& out) {
    for (const auto& apply : plan["applies"]) {
      out << apply["method"].get<std::string>() << " " << apply["url"].get<std::string>() << "\n"
          << "Content-Type: " << apply["content_type"].get<std::string>() << "\n"
          << core::Redact(apply["body"].dump(2)) << "\n";
    }
    const auto& wait = plan["wait"];
    out << "# then wait until " << wait["kind"].get<std::string>() << " " << wait["namespace"].get<std::string>() << "/"
        << wait["name"].get<std::string>() << " is ready (" << wait["until"].get<std::string>() << ")\n";
    for (const auto& request : plan["job_requests"]) {
      out << request["method"].get<std::string>() << " " << request["url"].get<std::string>() << "\n";
      if (request.contains("body")) out << core::Redact(request["body"].dump(2)) << "\n";
      if (request.contains("bytes")) out << "(" << request["bytes"].get<size_t>() << " bytes of zip)\n";
    }
  });
}

struct Submitted {
  workflow::SubmitOutcome outcome;
  nlohmann::json raycluster;  // null for --address
};

core::Result<int> RunSubmit(SubmitOptions& options, Context& context) {
  const CLI::Option* cluster_flag = options.ClusterFlagGiven();
  if (cluster_flag != nullptr && options.address_option->count() > 0) {
    return core::Fail(core::Error::Usage("--address and " + cluster_flag->get_name() +
                                         " are exclusive: pass --address for a Ray you reach directly, or the "
                                         "cluster flags for a RayCluster tputrain applies"));
  }
  Stack& stack = context.stack();
  core::Clock& clock = stack.clock();
  auto job = workflow::BuildMaxTextJob(options.spec, clock);
  if (!job) return core::Fail(job.error());
  if (context.global.dry_run && cluster_flag == nullptr) {
    auto description = workflow::DescribeJob(*job);
    PrintResult(context, description, [&](std::ostream& out) { out << description.dump(2) << "\n"; });
    return core::kExitOk;
  }

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
  std::unique_ptr<http::WebSocketConnector> websocket;
  std::string reattach;  // through the RayCluster, not the proxy URL that needs the cluster's credential
  if (cluster_flag != nullptr) {
    RayClusterFlags raycluster{options.raycluster.name.empty() ? workflow::DefaultRayClusterName(*job)
                                                               : options.raycluster.name,
                               options.access};
    reattach = RayClusterFlagsText(raycluster, context);
  }
  auto follow = [&context, &websocket, &reattach](ray::JobsClient& c, const std::string& id,
                                                  const std::function<void(std::string_view)>& on_text) {
    return FollowJob(context, c, id, on_text, 0, *websocket, reattach);
  };

  Submitted submitted;
  if (cluster_flag == nullptr) {
    auto client_options = ResolveRayClient(options.connection, context);
    if (!client_options) return core::Fail(client_options.error());
    auto ledger = OpenLedger(options, context);
    if (!ledger) return core::Fail(ledger.error());
    auto session = stack.Ray(std::move(*client_options));
    if (!session) return core::Fail(session.error());
    auto& client = *(*session)->client;
    websocket = std::move((*session)->websocket);
    auto outcome = workflow::SubmitRecorded(client, *job, {{"address", client.options().address}}, *ledger,
                                            !options.no_wait, follow, callbacks);
    if (!outcome) return core::Fail(outcome.error());
    submitted.outcome = std::move(*outcome);
  } else {
    if (auto completed = CompleteRayClusterRequest(options, context); !completed) return core::Fail(completed.error());
    auto connection = ConnectCluster(options.access, context);
    if (!connection) return core::Fail(connection.error());
    auto& kube = **connection;
    if (context.global.dry_run) {
      auto plan = workflow::PlanOnCluster(*kube.client, *kube.discovery, *job, options.raycluster);
      if (!plan) return core::Fail(plan.error());
      PrintPlan(context, *plan);
      return core::kExitOk;
    }
    auto ledger = OpenLedger(options, context);
    if (!ledger) return core::Fail(ledger.error());
    const std::string run_id = ledger->run_id;
    websocket = stack.WebSocketFor(&kube);
    workflow::ClusterSubmitEnv env{*kube.client, *kube.discovery, {clock, stack.sleeper(), context.cancel},
                                   context.reporter(), AccessRecord(options.access, kube, context), *ledger, {}};
    env.make_ray_client = [&](const k8s::ProxyEndpoint& endpoint) -> core::Result<std::unique_ptr<ray::JobsClient>> {
      auto client_options = RayThroughProxy(options.connection, endpoint, context);
      if (!client_options) return core::Fail(client_options.error());
      // The cluster's transport stack: its CA, its client certificate, its refreshed credential.
      return std::make_unique<ray::JobsClient>(*kube.transport, stack.sleeper(), std::move(*client_options));
    };
    auto outcome = workflow::SubmitOnCluster(env, *job, options.raycluster, !options.no_wait, follow, callbacks);
    if (!outcome) {
      auto error = outcome.error();
      error.message += "\n  what was applied is recorded in the run ledger: tputrain runs show --run " + run_id;
      return core::Fail(error);
    }
    submitted.outcome = std::move(outcome->submit);
    nlohmann::json applied = nlohmann::json::array();
    for (const auto& object : outcome->applied) {
      applied.push_back({{"kind", object.object.kind}, {"namespace", object.object.ns}, {"name", object.object.name},
                         {"action", std::string(k8s::ApplyActionName(object.action, false))},
                         {"resourceVersion", object.resource_version}});
    }
    submitted.raycluster = {{"name", outcome->raycluster}, {"namespace", outcome->ns}, {"applied", applied}};
  }

  const auto& outcome = submitted.outcome;
  auto json = workflow::OutcomeToJson(*job, outcome);
  if (!submitted.raycluster.is_null()) json["raycluster"] = submitted.raycluster;
  if (options.no_wait) {
    PrintResult(context, json, [&](std::ostream& out) { out << outcome.submission_id << "\n"; });
    return core::kExitOk;
  }
  printer.Flush();
  const ray::JobDetails& details = *outcome.job;
  std::string message = details.message ? details.message->substr(0, details.message->find('\n')) : "";
  context.reporter().Done("training", "job '" + outcome.submission_id + "' " + details.status_text);
  if (details.status != ray::JobStatus::kSucceeded) {
    if (!options.logs) PrintTail(context, outcome);
    if (!message.empty()) context.err << "Job '" << outcome.submission_id << "' " << details.status_text << ": "
                                      << message.substr(0, message.find(", last available logs")) << "\n";
  }
  if (outcome.summary.nan_loss) context.reporter().Warn("the loss became NaN");
  PrintResult(context, json, [&](std::ostream& out) { out << maxtext::FormatSummary(outcome.summary); });
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
      submit->add_option("--raycluster-values", ray_cluster.values_files, "YAML file of template values (repeatable)"));
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
