#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "flags/job_submit_flags.h"
#include "flags/ray_flags.h"
#include "output/job_output.h"
#include "output/output.h"
#include "tputrain/core/utf8.h"
#include "tputrain/workflow/ray_jobs.h"

namespace tputrain::cli {
namespace {

// The flags of `tputrain job VERB`: where the Ray head is, and what the verb takes.
struct JobOptions {
  workflow::RayHeadFlags head;
  workflow::JobSubmitRequest submit;
  std::string id;
  bool no_wait = false;
  bool follow = false;
  std::string timeout;  // job wait --timeout: core::ParseDuration's grammar, bare seconds too
};

core::Result<int> RunSubmit(const JobOptions& options, Context& context) {
  if (context.global.dry_run) {
    auto requests = workflow::SubmitDryRun(options.submit);
    if (!requests) return core::Fail(requests.error());
    PrintResult(context, *requests, [&](std::ostream& out) { out << requests->dump(2) << "\n"; });
    return core::kExitOk;
  }
  auto submitted = workflow::SubmitJob(context.stack(), options.head, options.submit);
  if (!submitted) return core::Fail(submitted.error());
  const std::string& id = submitted->id;
  SayOnStderr(context,
              "Job '" + id + "' " + (submitted->reattached ? "was already submitted; re-attached" : "submitted"));
  if (options.no_wait) {
    PrintResult(context, {{"submission_id", id}}, [&](std::ostream& out) { out << id << "\n"; });
    return core::kExitOk;
  }
  auto job = workflow::FollowJob(context.stack(), *submitted->session, id, LogStream(context),
                                 workflow::ReattachFlags(context.stack(), options.head));
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

core::Result<int> RunStatus(const JobOptions& options, Context& context) {
  auto job = workflow::JobStatus(context.stack(), options.head, options.id);
  if (!job) return core::Fail(job.error());
  PrintJob(context, *job);
  return core::kExitOk;
}

core::Result<int> RunLogs(const JobOptions& options, Context& context) {
  if (options.follow) {
    auto job = workflow::FollowJobLogs(context.stack(), options.head, options.id, LogStream(context));
    if (!job) return core::Fail(job.error());
    return Finish(context, *job);
  }
  auto logs = workflow::JobLogs(context.stack(), options.head, options.id);
  if (!logs) return core::Fail(logs.error());
  PrintResult(context, {{"submission_id", options.id}, {"logs", *logs}}, [&](std::ostream& out) { out << *logs; });
  return core::kExitOk;
}

core::Result<int> RunWait(const JobOptions& options, Context& context) {
  auto job = workflow::WaitJob(context.stack(), options.head, options.id, options.timeout);
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

core::Result<int> RunStop(const JobOptions& options, Context& context) {
  auto stopped = workflow::StopJob(context.stack(), options.head, options.id);
  if (!stopped) return core::Fail(stopped.error());
  // Under --dry-run the stop was printed, not sent: the job runs on, so there is nothing to wait for.
  if (context.global.dry_run) return core::kExitOk;
  SayOnStderr(context, "Job '" + options.id + "' " + (*stopped ? "told to stop" : "had already finished"));
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
  auto deleted = workflow::DeleteJob(context.stack(), options.head, options.id);
  if (!deleted) return core::Fail(deleted.error());
  PrintResult(context, {{"submission_id", options.id}, {"deleted", *deleted}},
              [&](std::ostream& out) { out << "Deleted job '" << options.id << "'\n"; });
  return core::kExitOk;
}

core::Result<int> RunList(const JobOptions& options, Context& context) {
  auto jobs = workflow::ListJobs(context.stack(), options.head);
  if (!jobs) return core::Fail(jobs.error());
  std::vector<std::vector<std::string>> rows;
  for (const auto& job : *jobs) {
    std::string entrypoint =
        OneLine(job.entrypoint.size() > 60 ? core::Utf8Excerpt(job.entrypoint, 57, "...") : job.entrypoint);
    rows.push_back({job.id(), job.type, job.status_text, FormatTime(job.start_time_ms), entrypoint});
  }
  PrintResult(context, workflow::ToJson(*jobs), [&](std::ostream& out) {
    PrintListTable(context, out, {"id", "type", "status", "start_time", "entrypoint"}, rows, "No Ray jobs.");
  });
  return core::kExitOk;
}

}  // namespace

void SetupJobCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<JobOptions>();
  auto* job = root.add_subcommand("job", "Submit, follow and manage Ray jobs through the dashboard's Jobs API");
  job->require_subcommand(1);
  static constexpr char kExitCodes[] =
      "Exit codes of submit, wait and logs --follow: 0 SUCCEEDED, 1 FAILED, 3 STOPPED (the Ray CLI\n"
      "returns 0 for a stopped job), 2 usage, 130 detached with Ctrl-C.";
  job->footer(kExitCodes);
  auto add = [&](const char* name, const char* help, auto run, bool takes_id, const char* example) {
    auto* command = job->add_subcommand(name, help);
    command->footer(std::string("Example:\n  ") + example + "\n\n" + kExitCodes);
    AddRayConnectionFlags(command, options->head.connection);
    AddRayClusterFlags(*command, options->head.raycluster);
    AddTpuVmRayFlag(*command, options->head.tpu_vm);
    if (takes_id) command->add_option("id", options->id, "Submission id (or Ray job id)")->required();
    command->callback([options, &context, run] { context.outcome = run(*options, context); });
    return command;
  };
  auto* submit = add("submit", "Submit a job and follow its log until it ends", RunSubmit, false,
                     "tputrain job submit --address http://127.0.0.1:8265 --working-dir . -- python train.py");
  AddSubmitFlags(submit, options->submit);
  submit->add_flag("--no-wait", options->no_wait, "Print the submission id and return at once");
  add("status", "Show a job's status and details", RunStatus, true,
      "tputrain job status raysubmit_XYZ --raycluster raycluster-maxtext --format json");
  auto* logs = add("logs", "Print a job's log", RunLogs, true,
                   "tputrain job logs raysubmit_XYZ --address http://127.0.0.1:8265 --follow");
  logs->add_flag("-f,--follow", options->follow, "Follow the log until the job ends; exit code mirrors the job");
  auto* stop = add("stop", "Stop a running job and wait until it has stopped", RunStop, true,
                   "tputrain job stop raysubmit_XYZ --address http://127.0.0.1:8265");
  stop->add_flag("--no-wait", options->no_wait, "Return once the stop was requested");
  add("delete", "Delete a finished job's record (its log files stay on the head)", RunDelete, true,
      "tputrain job delete raysubmit_XYZ --address http://127.0.0.1:8265");
  add("list", "List the jobs the head knows", RunList, false,
      "tputrain job list --raycluster raycluster-maxtext --cluster ray-tpu --location us-east5-b");
  auto* wait = add("wait", "Wait until a job ends; exit code mirrors the job", RunWait, true,
                   "tputrain job wait raysubmit_XYZ --address http://127.0.0.1:8265 --timeout 2h");
  wait->add_option("--timeout", options->timeout,
                   "Give up after this long (exit 1): 90s, 30m, 1h30m, or bare seconds as before");
}

}  // namespace tputrain::cli
