// tputrain logs TARGET: the logs of a workload's pods, as kubectl logs prints them.
#include <limits>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/logs.h"
#include "tputrain/workflow/names.h"

namespace tputrain::cli {
namespace {

struct LogsFlags {
  KubeAccessFlags access;
  std::string target;
  std::string container;
  bool follow = false;
  std::string since;
  std::string tail;
  bool timestamps = false;
  bool previous = false;
  bool prefix = false;
  bool no_prefix = false;
  std::string max_log_requests = "5";
};

constexpr int64_t kMaxLogRequests = 1000;

// Everything that needs no API call: flags into the workflow's request (ns is filled later).
core::Result<workflow::LogsRequest> RequestFrom(const LogsFlags& flags, Context& context) {
  for (auto format : {OutputFormat::kJson, OutputFormat::kYaml}) {
    if (auto refused = RefuseFormat(context, format,
                                    "logs are text, printed as the containers wrote them; "
                                    "leave out --format");
        !refused) {
      return core::Fail(refused.error());
    }
  }
  workflow::LogsRequest request;
  auto target = workflow::ParseLogTarget(flags.target);
  if (!target) return core::Fail(target.error());
  request.target = std::move(*target);
  if (!flags.container.empty()) {
    // A container's name is an RFC 1123 label, as a namespace's is.
    if (auto valid = workflow::CheckKubeLabelName("-c/--container", flags.container); !valid)
      return core::Fail(valid.error());
    request.container = flags.container;
  }
  if (!flags.since.empty()) {
    auto since = core::ParseDuration("--since", flags.since);
    if (!since) return core::Fail(since.error());
    // Whole seconds, rounded up as kubectl does ("1500ms" reads the last 2 s).
    request.log.since_seconds = (since->count() + 999) / 1000;
  }
  if (!flags.tail.empty() && flags.tail != "-1") {  // kubectl's -1: the whole log
    auto tail = core::ParseWhole("--tail", flags.tail, 0, std::numeric_limits<int32_t>::max());
    if (!tail) return core::Fail(tail.error());
    request.log.tail_lines = *tail;
  }
  auto max_requests = core::ParseCount("--max-log-requests", flags.max_log_requests, kMaxLogRequests);
  if (!max_requests) return core::Fail(max_requests.error());
  request.max_log_requests = static_cast<int>(*max_requests);
  request.log.follow = flags.follow;
  request.log.timestamps = flags.timestamps;
  if (flags.previous && flags.follow) {
    return core::Fail(core::Error::Usage("--previous: a previous instance has ended; it cannot be followed (-f)"));
  }
  request.log.previous = flags.previous;
  if (flags.prefix) request.prefix = true;
  if (flags.no_prefix) request.prefix = false;
  if (!flags.access.ns.empty()) {
    if (auto valid = workflow::CheckKubeLabelName("-n/--namespace", flags.access.ns); !valid)
      return core::Fail(valid.error());
  }
  return request;
}

core::Result<int> RunLogs(const LogsFlags& flags, Context& context) {
  auto request = RequestFrom(flags, context);
  if (!request) return core::Fail(request.error());
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  request->ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  if (auto valid = workflow::CheckKubeLabelName("namespace", request->ns); !valid) return core::Fail(valid.error());
  workflow::LogsSinks sinks;
  sinks.out = [&context](std::string_view lines) {
    context.out << lines;
    context.out.flush();  // a followed line is shown when it arrives, also through a pipe
  };
  sinks.notice = [&context](std::string_view line) { context.reporter().Warn(context.redactor(line)); };
  auto streamed = workflow::StreamLogs(client, *request, sinks, context.cancel);
  if (!streamed) return core::Fail(streamed.error());
  return core::kExitOk;
}

}  // namespace

void SetupLogsCommand(CLI::App& root, Context& context) {
  auto flags = std::make_shared<LogsFlags>();
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
