#include "tputrain/workflow/object_wait.h"

#include "tputrain/core/duration.h"
#include "tputrain/k8s/wait.h"

namespace tputrain::workflow {

core::Result<ObjectWaitOutcome> WaitForObject(Root& root, const ObjectWaitRequest& request, core::CancelToken* cancel) {
  auto timeout = core::ParseDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  auto ref = k8s::ParseObjectRef(request.target, client);
  if (!ref) return core::Fail(ref.error());
  ObjectWaitOutcome outcome{
      ref->kind, request.access.ns.empty() ? client.default_namespace() : request.access.ns, ref->name, {}};
  k8s::WatchOptions options;
  options.timeout = *timeout;
  auto waited = k8s::WaitReady(client, *(*connection)->discovery, *ref, outcome.ns, options,
                               {root.clock(), root.sleeper(), cancel});
  if (!waited) return core::Fail(waited.error());
  outcome.notes = std::move(waited->notes);
  return outcome;
}

nlohmann::json ToJson(const ObjectWaitOutcome& waited) {
  return {{"kind", waited.kind}, {"namespace", waited.ns}, {"name", waited.name}, {"ready", true}};
}

}  // namespace tputrain::workflow
