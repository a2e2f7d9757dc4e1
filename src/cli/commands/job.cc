#include <algorithm>
#include <ctime>

#include "commands/commands.h"
#include "commands/job_submit.h"
#include "commands/k8s_access.h"
#include "commands/ray_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/ray/wait.h"
#include "tputrain/core/clock.h"

namespace tputrain::cli {
namespace {

struct JobOptions {
  ray::ConnectionFlags connection;
  RayClusterFlags raycluster;
  JobSubmitFlags submit;
  std::string id;
  bool no_wait = false;
  bool follow = false;
  std::string timeout;  // job wait --timeout: core::ParseDuration's grammar, bare seconds too
};

// One session per process, so the version handshake happens once: through the RayCluster's
// API server, or at the address.
core::Result<std::unique_ptr<RaySession>> Connect(const JobOptions& options, Context& context) {
  if (!options.raycluster.name.empty()) return ConnectRayCluster(options.raycluster, options.connection, context);
  auto client_options = ResolveRayClient(options.connection, context);
  if (!client_options) return core::Fail(client_options.error());
  return context.stack().Ray(std::move(*client_options));
}

// How to reach this Ray again: through the same RayCluster, or at the same address.
std::string ReattachFlags(const JobOptions& options, const Context& context) {
  return options.raycluster.name.empty() ? "" : RayClusterFlagsText(options.raycluster, context);
}

std::string FormatTime(const std::optional<int64_t>& ms) {
  if (!ms) return "";
  std::time_t seconds = static_cast<std::time_t>(*ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Ray appends the log's last 20,000 characters to a failed job's message; they were printed
// already, so people get the first sentence.
std::string FirstLine(const std::optional<std::string>& text) {
  if (!text) return "";
  std::string line = text->substr(0, text->find('\n'));
  return line.substr(0, line.find(", last available logs"));
}

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void PrintJob(Context& context, const ray::JobDetails& job) {
  PrintResult(context, job.raw, [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows = {
        {"submission_id", job.submission_id.value_or("")},
        {"job_id", job.job_id.value_or("")},
        {"status", job.status_text},
        {"message", FirstLine(job.message)},
        {"entrypoint", job.entrypoint},
        {"start_time", FormatTime(job.start_time_ms)},
        {"end_time", FormatTime(job.end_time_ms)},
        {"driver_exit_code", job.driver_exit_code ? std::to_string(*job.driver_exit_code) : ""},
    };
    if (job.error_type) rows.push_back({"error_type", *job.error_type});
    PrintTable(out, {"field", "value"}, rows);
  });
}

// The last word after following: the status on stderr, the details on stdout for --format
// json/yaml, and the exit code that mirrors the job.
int Finish(Context& context, const ray::JobDetails& job) {
  context.err << "Job '" << job.id() << "' " << job.status_text;
  if (job.message) context.err << ": " << FirstLine(job.message);
  context.err << "\n";
  if (context.global.output_format() != OutputFormat::kTable) PrintResult(context, job.raw, [](std::ostream&) {});
  return ray::ExitCodeForJob(job.status);
}

// Log text goes to stdout, unless stdout is reserved for the JSON/YAML result.
ray::LogTextHandler LogSink(Context& context) {
  std::ostream& sink = context.global.output_format() == OutputFormat::kTable ? context.out : context.err;
  return [&sink](std::string_view text) { sink.write(text.data(), static_cast<std::streamsize>(text.size())).flush(); };
}

core::Result<int> RunSubmitDryRun(const ray::SubmitRequest& request, const std::string& local_dir, Context& context) {
  ray::SubmitRequest shown = request;
  nlohmann::json requests = nlohmann::json::array();
  if (!local_dir.empty()) {
    auto package = ray::PackageWorkingDir(local_dir);
    if (!package) return core::Fail(package.error());
    shown.runtime_env["working_dir"] = package->uri();
    requests.push_back({{"method", "PUT"}, {"path", "/api/packages/gcs/" + package->name},
                        {"bytes", package->archive.size()}});
  }
  auto body = ray::SubmitBody(shown, ray::ServerVersion{});
  if (!body) return core::Fail(body.error());
  requests.push_back({{"method", "POST"}, {"path", "/api/jobs/"}, {"body", *body}});
  PrintResult(context, requests, [&](std::ostream& out) { out << requests.dump(2) << "\n"; });
  return core::kExitOk;
}

core::Result<int> RunSubmit(const JobOptions& options, Context& context) {
  std::string local_dir;
  auto request = BuildSubmitRequest(options.submit, local_dir);
  if (!request) return core::Fail(request.error());
  if (context.global.dry_run) return RunSubmitDryRun(*request, local_dir, context);
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto& client = *(*session)->client;
  if (!local_dir.empty()) {
    auto uri = client.UploadWorkingDir(local_dir);
    if (!uri) return core::Fail(uri.error());
    request->runtime_env["working_dir"] = *uri;
  }
  auto submitted = client.Submit(*request);
  if (!submitted) return core::Fail(submitted.error());
  const std::string& id = submitted->submission_id;
  context.err << "Job '" << id << "' " << (submitted->reattached ? "was already submitted; re-attached" : "submitted")
              << "\n";
  if (options.no_wait) {
    PrintResult(context, {{"submission_id", id}}, [&](std::ostream& out) { out << id << "\n"; });
    return core::kExitOk;
  }
  auto job = FollowJob(context, client, id, LogSink(context), 0, *(*session)->websocket, ReattachFlags(options, context));
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

core::Result<int> RunStatus(const JobOptions& options, Context& context) {
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto job = (*session)->client->Get(options.id);
  if (!job) return core::Fail(job.error());
  PrintJob(context, *job);
  return core::kExitOk;
}

core::Result<int> RunLogs(const JobOptions& options, Context& context) {
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto& client = *(*session)->client;
  if (options.follow) {
    auto job = FollowJob(context, client, options.id, LogSink(context), 0, *(*session)->websocket,
                         ReattachFlags(options, context));
    if (!job) return core::Fail(job.error());
    return Finish(context, *job);
  }
  auto logs = client.Logs(options.id);
  if (!logs) return core::Fail(logs.error());
  PrintResult(context, {{"submission_id", options.id}, {"logs", *logs}}, [&](std::ostream& out) { out << *logs; });
  return core::kExitOk;
}

core::Result<int> RunWait(const JobOptions& options, Context& context) {
  std::optional<std::chrono::milliseconds> timeout;
  if (!options.timeout.empty()) {
    auto parsed = core::ParseDuration("--timeout", options.timeout);
    if (!parsed) return core::Fail(parsed.error());
    timeout = *parsed;
  }
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  Stack& stack = context.stack();
  auto job = ray::WaitUntilTerminal(*(*session)->client, options.id, {stack.clock(), stack.sleeper(), context.cancel},
                                    timeout);
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

core::Result<int> RunStop(const JobOptions& options, Context& context) {
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto& client = *(*session)->client;
  auto stopped = client.Stop(options.id);
  if (!stopped) return core::Fail(stopped.error());
  // Under --dry-run the stop was printed, not sent: the job runs on, so there is nothing to wait for.
  if (context.global.dry_run) return core::kExitOk;
  context.err << "Job '" << options.id << "' " << (*stopped ? "told to stop" : "had already finished") << "\n";
  if (options.no_wait) {
    PrintResult(context, {{"submission_id", options.id}, {"stopped", *stopped}}, [](std::ostream&) {});
    return core::kExitOk;
  }
  JobOptions wait = options;
  auto code = RunWait(wait, context);
  if (!code) return core::Fail(code.error());
  return core::kExitOk;  // the stop did what was asked, whatever state the job ended in
}

core::Result<int> RunDelete(const JobOptions& options, Context& context) {
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto deleted = (*session)->client->Delete(options.id);
  if (!deleted) return core::Fail(deleted.error());
  PrintResult(context, {{"submission_id", options.id}, {"deleted", *deleted}},
              [&](std::ostream& out) { out << "Deleted job '" << options.id << "'\n"; });
  return core::kExitOk;
}

core::Result<int> RunList(const JobOptions& options, Context& context) {
  auto session = Connect(options, context);
  if (!session) return core::Fail(session.error());
  auto jobs = (*session)->client->List();
  if (!jobs) return core::Fail(jobs.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& job : *jobs) {
    json.push_back(job.raw);
    std::string entrypoint = OneLine(job.entrypoint.size() > 60 ? job.entrypoint.substr(0, 57) + "..." : job.entrypoint);
    rows.push_back({job.id(), job.type, job.status_text, FormatTime(job.start_time_ms), entrypoint});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    PrintTable(out, {"id", "type", "status", "start_time", "entrypoint"}, rows);
  });
  return core::kExitOk;
}

void AddSubmitFlags(CLI::App* submit, JobSubmitFlags& flags) {
  submit->add_option("command", flags.command, "The entrypoint, after --: COMMAND ARGS...");
  submit->add_option("--submission-id", flags.submission_id, "Id for the job (default: generated raysubmit_...)");
  submit->add_option("--runtime-env-json", flags.runtime_env_json, "runtime_env as a JSON object");
  submit->add_option("--runtime-env", flags.runtime_env_file, "runtime_env from a YAML or JSON file");
  submit->add_option("--working-dir", flags.working_dir,
                     "Local directory to zip and upload as the job's working_dir (or a remote URI)");
  submit->add_option("--metadata-json", flags.metadata_json, "Job metadata as a JSON object of strings");
  submit->add_option("--entrypoint-num-cpus", flags.num_cpus, "CPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-num-gpus", flags.num_gpus, "GPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-memory", flags.memory, "Memory in bytes reserved for the entrypoint (Ray >= 2.8)");
  submit->add_option("--entrypoint-resources", flags.resources_json,
                     "Custom resources for the entrypoint as JSON, e.g. '{\"TPU\": 4}'");
}

}  // namespace

void SetupJobCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<JobOptions>();
  auto* job = root.add_subcommand("job", "Submit, follow and manage Ray jobs through the dashboard's Jobs API");
  job->require_subcommand(1);
  job->footer(
      "Exit codes of submit, wait and logs --follow: 0 SUCCEEDED, 1 FAILED, 3 STOPPED (the Ray CLI\n"
      "returns 0 for a stopped job), 2 usage, 130 detached with Ctrl-C.");
  auto add = [&](const char* name, const char* help, auto run, bool takes_id) {
    auto* command = job->add_subcommand(name, help);
    AddRayConnectionFlags(command, options->connection);
    AddRayClusterFlags(*command, options->raycluster);
    if (takes_id) command->add_option("id", options->id, "Submission id (or Ray job id)")->required();
    command->callback([options, &context, run] { context.outcome = run(*options, context); });
    return command;
  };
  auto* submit = add("submit", "Submit a job and follow its log until it ends", RunSubmit, false);
  AddSubmitFlags(submit, options->submit);
  submit->add_flag("--no-wait", options->no_wait, "Print the submission id and return at once");
  submit->footer("Example:\n  tputrain job submit --address http://127.0.0.1:8265 --working-dir . -- python train.py");
  add("status", "Show a job's status and details", RunStatus, true);
  auto* logs = add("logs", "Print a job's log", RunLogs, true);
  logs->add_flag("-f,--follow", options->follow, "Follow the log until the job ends; exit code mirrors the job");
  auto* stop = add("stop", "Stop a running job and wait until it has stopped", RunStop, true);
  stop->add_flag("--no-wait", options->no_wait, "Return once the stop was requested");
  add("delete", "Delete a finished job's record (its log files stay on the head)", RunDelete, true);
  add("list", "List the jobs the head knows", RunList, false);
  auto* wait = add("wait", "Wait until a job ends; exit code mirrors the job", RunWait, true);
  wait->add_option("--timeout", options->timeout,
                   "Give up after this long (exit 1): 90s, 30m, 1h30m, or bare seconds as before");
}

}  // namespace tputrain::cli
