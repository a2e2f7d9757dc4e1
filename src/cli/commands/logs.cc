// tputrain logs TARGET: the logs of a workload's pods, as kubectl logs prints them.
#include "tputrain/workflow/logs.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunLogs(const workflow::LogsFlags& flags, Context& context) {
  for (auto format : {OutputFormat::kJson, OutputFormat::kYaml}) {
    if (auto refused = RefuseFormat(context, format,
                                    "logs are text, printed as the containers wrote them; "
                                    "leave out --format");
        !refused) {
      return core::Fail(refused.error());
    }
  }
  workflow::LogsSinks sinks;
  sinks.out = [&context](std::string_view lines) {
    context.out << lines;
    context.out.flush();  // a followed line is shown when it arrives, also through a pipe
  };
  sinks.notice = [&context](std::string_view line) { context.reporter().Warn(context.redactor(line)); };
  auto streamed = workflow::StreamLogs(context.stack(), flags, sinks, context.cancel);
  if (!streamed) return core::Fail(streamed.error());
  return core::kExitOk;
}

}  // namespace

void SetupLogsCommand(CLI::App& root, Context& context) {
  auto flags = std::make_shared<workflow::LogsFlags>();
  auto* logs = root.add_subcommand("logs", "Print or follow the logs of a workload's pods (as kubectl logs)");
  logs->add_option("target", flags->target,
                   "lws/NAME, jobset/NAME, raycluster/NAME, job/NAME, deployment/NAME, pod/NAME or a pod's NAME")
      ->required();
  logs->add_option("-c,--container", flags->container,
                   "Container to read (default: the pod's only one, or its kubectl.kubernetes.io/default-container)");
  logs->add_flag("-f,--follow", flags->follow, "Keep printing lines as they are written, until the containers end");
  logs->add_option("--since", flags->since, "Only lines newer than this, e.g. 10m, 1h30m")->type_name("DURATION");
  logs->add_option("--tail", flags->tail, "Only the last N lines of each container (default: all)")->type_name("N");
  logs->add_flag("--timestamps", flags->timestamps, "Begin each line with the time the container wrote it");
  logs->add_flag("-p,--previous", flags->previous,
                 "The containers' previous instances: what a crash or an OOM kill ended");
  auto* prefix = logs->add_flag("--prefix", flags->prefix,
                                "Begin each line with [pod/NAME/CONTAINER] (default: when there are several pods)");
  logs->add_flag("--no-prefix", flags->no_prefix, "Never begin lines with [pod/NAME/CONTAINER]")->excludes(prefix);
  logs->add_option("--max-log-requests", flags->max_log_requests,
                   "Most pods to follow at once (default 5); more is refused")
      ->type_name("N");
  AddKubeAccessFlags(*logs, flags->access);
  logs->footer(
      "Examples:\n"
      "  tputrain logs -f lws/jetstream-pathways -n ml\n"
      "  tputrain logs raycluster/ray --tail 100 --since 10m\n"
      "  tputrain logs jetstream-pathways-0 -c jax-tpu");
  logs->callback([flags, &context] { context.outcome = RunLogs(*flags, context); });
}

}  // namespace tputrain::cli
