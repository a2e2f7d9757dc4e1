// tputrain logs from its flags: each checked before any call, then the cluster reached.
#include <limits>

#include "names.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/logs.h"

namespace tputrain::workflow {
namespace {

constexpr int64_t kMaxLogRequests = 1000;

}  // namespace

core::Result<LogsRequest> LogsFlags::Resolve() const {
  LogsRequest request;
  auto parsed_target = ParseLogTarget(target);
  if (!parsed_target) return core::Fail(parsed_target.error());
  request.target = std::move(*parsed_target);
  if (!container.empty()) {
    // A container's name is an RFC 1123 label, as a namespace's is.
    if (auto valid = CheckKubeLabelName("-c/--container", container); !valid) return core::Fail(valid.error());
    request.container = container;
  }
  if (!since.empty()) {
    auto duration = core::ParseDuration("--since", since);
    if (!duration) return core::Fail(duration.error());
    // Whole seconds, rounded up as kubectl does ("1500ms" reads the last 2 s).
    request.log.since_seconds = (duration->count() + 999) / 1000;
  }
  if (!tail.empty() && tail != "-1") {  // kubectl's -1: the whole log
    auto lines = core::ParseWhole("--tail", tail, 0, std::numeric_limits<int32_t>::max());
    if (!lines) return core::Fail(lines.error());
    request.log.tail_lines = *lines;
  }
  auto max_requests = core::ParseCount("--max-log-requests", max_log_requests, kMaxLogRequests);
  if (!max_requests) return core::Fail(max_requests.error());
  request.max_log_requests = static_cast<int>(*max_requests);
  request.log.follow = follow;
  request.log.timestamps = timestamps;
  if (previous && follow) {
    return core::Fail(core::Error::Usage("--previous: a previous instance has ended; it cannot be followed (-f)"));
  }
  request.log.previous = previous;
  if (prefix) request.prefix = true;
  if (no_prefix) request.prefix = false;
  if (!access.ns.empty()) {
    if (auto valid = CheckKubeLabelName("-n/--namespace", access.ns); !valid) return core::Fail(valid.error());
  }
  return request;
}

core::Status StreamLogs(Root& root, const LogsFlags& flags, const LogsSinks& sinks, const core::CancelToken* cancel) {
  auto request = flags.Resolve();
  if (!request) return core::Fail(request.error());
  auto connection = ConnectCluster(root, flags.access);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  request->ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  if (auto valid = CheckKubeLabelName("namespace", request->ns); !valid) return core::Fail(valid.error());
  return StreamLogs(client, *request, sinks, cancel);
}

}  // namespace tputrain::workflow
