// tputrain queue status [WORKLOAD] | wait WORKLOAD: why a workload waits, and waiting until it
// is admitted.
#include "commands/k8s_access.h"
#include "commands/queue_output.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunStatus(const workflow::QueueStatusRequest& request, Context& context) {
  auto reports = workflow::QueueStatus(context.stack(), request);
  if (!reports) return core::Fail(reports.error());
  PrintWorkloadReports(context, *reports);
  return core::kExitOk;
}

core::Result<int> RunWait(const workflow::QueueWaitRequest& request, Context& context) {
  auto report = workflow::WaitQueued(context.stack(), request);
  if (!report) return core::Fail(report.error());
  PrintWorkloadReports(context, {*report});
  return core::kExitOk;
}

}  // namespace

void AddQueueStatusCommands(CLI::App& queue, Context& context) {
  auto status_flags = std::make_shared<workflow::QueueStatusRequest>();
  auto* status = queue.add_subcommand(
      "status", "Whether each workload is admitted; if not, its place in the queue, the quota and Kueue's reason");
  status->add_option(
      "workload", status_flags->workload,
      "KIND/NAME of the workload (jobset/train, rayjob/tune, lws/serve: one line per group) or its Workload "
      "name (default: every workload of the namespace)");
  status->add_option("--queue", status_flags->queue, "Only the workloads of this queue");
  AddKubeAccessFlags(*status, status_flags->access);
  status->footer("Example:\n  tputrain queue status jobset/train -n ml");
  status->callback([status_flags, &context] { context.outcome = RunStatus(*status_flags, context); });

  auto wait_flags = std::make_shared<workflow::QueueWaitRequest>();
  auto* wait = queue.add_subcommand("wait", "Wait until a workload is admitted (or finished), saying why it waits");
  wait->add_option("workload", wait_flags->workload, "KIND/NAME of the workload, or its Workload name")->required();
  wait->add_option("--for", wait_flags->until, "admitted (default) or finished");
  wait->add_option("--timeout", wait_flags->timeout, "Stop waiting after this long (default 30m)");
  AddKubeAccessFlags(*wait, wait_flags->access);
  wait->footer(
      "Example:\n  tputrain queue wait jobset/train --timeout 2h\n"
      "Exit codes: 0 admitted (or finished), 1 not in time (the last status is said).");
  wait->callback([wait_flags, &context] { context.outcome = RunWait(*wait_flags, context); });
}

}  // namespace tputrain::cli
