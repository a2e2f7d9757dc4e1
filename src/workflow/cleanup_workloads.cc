// The workload side of cleanup: Ray jobs stopped, Kubernetes objects deleted, before the
// machines under them go.

#include "tputrain/k8s/delete.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {
namespace {

void RecordDeleted(ProvisionEnv& env, const state::LedgerEntry& entry) {
  if (env.ledger == nullptr) return;
  auto status = env.ledger->RecordState(env.run_id, entry.kind, entry.name, state::EntryState::kDeleted);
  if (!status) env.reporter.Warn("run ledger: " + status.error().message);
}

Outcome Done(ProvisionEnv& env, const state::LedgerEntry& entry, const std::string& name, OutcomeAction action) {
  RecordDeleted(env, entry);
  env.reporter.Done(entry.KindName() + " " + name, std::string(OutcomeActionPhrase(action)));
  return Outcome{entry.kind, name, entry.name, action, "", entry.details};
}

// Connection refused, no route, name not resolved: the head is not there to ask.
bool Unreachable(const core::Error& error) {
  return error.http_status == 0 &&
         (error.kind == core::ErrorKind::kUnavailable || error.kind == core::ErrorKind::kDeadlineExceeded);
}

k8s::Object ObjectOf(const state::LedgerEntry& entry) {
  k8s::Object object;
  object.api_version = entry.details.value("api_version", "");
  object.kind = entry.details.value("kind", "");
  object.name = entry.details.value("name", "");
  object.ns = entry.details.value("namespace", "");
  object.source = "run ledger";
  object.json = {{"apiVersion", object.api_version}, {"kind", object.kind}, {"metadata", {{"name", object.name}}}};
  if (!object.ns.empty()) object.json["metadata"]["namespace"] = object.ns;
  return object;
}

}  // namespace

core::Result<Outcome> StopRayJobEntry(ProvisionEnv& env, const state::LedgerEntry& entry, const CleanupReach& reach,
                                      bool head_doomed) {
  const std::string& id = entry.name;
  auto why_not = [&](const core::Error& error) -> core::Result<Outcome> {
    if (head_doomed) {
      const bool on_tpu_vm = entry.details.is_object() && entry.details.contains("tpu_vm");
      return Done(env, entry, id, on_tpu_vm ? OutcomeAction::kGoesWithTpuVm : OutcomeAction::kGoesWithRayCluster);
    }
    if (Unreachable(error)) {
      // tputrain did not make this Ray cluster; with its head gone, no job of it runs.
      env.reporter.Warn("ray-job " + id + ": the Ray head is unreachable (" + error.message +
                        "); nothing left to stop");
      return Done(env, entry, id, OutcomeAction::kHeadUnreachable);
    }
    core::Error failed = error;
    failed.message = "stopping Ray job " + id + ": " + failed.message;
    return core::Fail(failed);
  };
  if (env.dry_run != nullptr) return Outcome{entry.kind, id, entry.name, OutcomeAction::kWouldStop, "", entry.details};
  if (!reach.ray_jobs) return why_not(core::Error::Internal("no way to reach Ray was given"));
  auto target = RayJobTargetOf(entry);
  if (!target) return why_not(target.error());
  auto access = reach.ray_jobs(*target);
  if (!access) {
    // The TPU API no longer knows the TPU VM (a `tpu-vm delete` before this cleanup): no job of
    // its Ray runs any more.
    const auto& error = access.error();
    if (target->OnTpuVm() && error.kind == core::ErrorKind::kNotFound && error.where.rfind("tpu.", 0) == 0) {
      return Done(env, entry, id, OutcomeAction::kAlreadyGone);
    }
    return why_not(error);
  }
  env.reporter.Progress("ray-job " + id, "stopping");
  auto stopped = access->client->Stop(id);
  if (!stopped) {
    if (stopped.error().kind == core::ErrorKind::kNotFound) return Done(env, entry, id, OutcomeAction::kAlreadyGone);
    return why_not(stopped.error());
  }
  return Done(env, entry, id, *stopped ? OutcomeAction::kStopped : OutcomeAction::kAlreadyFinished);
}

core::Result<Outcome> UnpublishServedModelEntry(ProvisionEnv& env, const state::LedgerEntry& entry,
                                                const CleanupReach& reach) {
  auto record = ServedModelOf(entry);
  if (!record) return core::Fail(record.error());
  const std::string& id = record->model.id;
  if (env.dry_run != nullptr)
    return Outcome{entry.kind, id, entry.name, OutcomeAction::kWouldUnpublish, "", entry.details};
  auto fail = [&](core::Error error) -> core::Result<Outcome> {
    error.message = "unpublishing " + id + ": " + error.message;
    return core::Fail(error);
  };
  if (!reach.connect_cluster) return fail(core::Error::Internal("no way to reach the cluster was given"));
  auto connection = reach.connect_cluster(record->target.access);
  if (!connection) return fail(connection.error());
  const auto& target = record->target;
  ServeEndpoint endpoint{
      *(*connection)->transport,
      k8s::ServiceProxyUrl((*connection)->client->server(), target.ns, target.service, std::to_string(target.port)),
      env.clock, std::chrono::seconds(60)};
  env.reporter.Progress("served-model " + id, "unpublishing");
  auto unpublished = UnpublishSaxModel(endpoint, id);
  if (unpublished)
    return Done(env, entry, id, *unpublished ? OutcomeAction::kUnpublished : OutcomeAction::kAlreadyGone);
  const int status = unpublished.error().http_status;
  if (status == 404 || status == 503) {
    // The service proxy's answer: no sax-http (or no pod behind it) to unpublish through.
    env.reporter.Warn("served-model " + id + ": " + unpublished.error().message +
                      "; its record stays in the cell's sax-root (gs://BUCKET/sax-root)");
    return Done(env, entry, id, OutcomeAction::kServerGone);
  }
  return fail(unpublished.error());
}

core::Result<std::vector<Outcome>> DeleteK8sEntries(ProvisionEnv& env, const std::vector<state::LedgerEntry>& entries,
                                                    const CleanupReach& reach) {
  std::vector<Outcome> outcomes;
  if (entries.empty()) return outcomes;
  if (env.dry_run != nullptr) {
    for (const auto& entry : entries) {
      outcomes.push_back(
          {entry.kind, ObjectOf(entry).Describe(), entry.name, OutcomeAction::kWouldDelete, "", entry.details});
    }
    return outcomes;
  }
  auto access = AccessOf(entries.front());
  if (!access) return core::Fail(access.error());
  auto fail = [&](core::Error error) -> core::Result<std::vector<Outcome>> {
    error.message = "Kubernetes objects on " + access->Id() + ": " + error.message;
    return core::Fail(error);
  };
  if (!reach.connect_cluster) return fail(core::Error::Internal("no way to reach the cluster was given"));
  auto connection = reach.connect_cluster(*access);
  if (!connection) return fail(connection.error());
  std::vector<k8s::Object> objects;
  for (const auto& entry : entries) {
    objects.push_back(ObjectOf(entry));
    env.reporter.Progress("k8s " + objects.back().Describe(), "deleting");
  }
  // The entry an object came from; its namespace may have been filled in from the context.
  auto entry_of = [&](const k8s::Object& object) -> const state::LedgerEntry* {
    const state::LedgerEntry* same_name = nullptr;
    for (const auto& entry : entries) {
      const auto& details = entry.details;
      if (details.value("kind", "") != object.kind || details.value("name", "") != object.name ||
          details.value("api_version", "") != object.api_version) {
        continue;
      }
      if (details.value("namespace", "") == object.ns) return &entry;
      same_name = &entry;
    }
    return same_name;
  };
  k8s::DeleteOptions options;
  if (env.poll.timeout) options.timeout = *env.poll.timeout;
  auto deleted = k8s::Delete(
      *(*connection)->client, *(*connection)->discovery, objects, options, env, [&](const k8s::DeleteResult& result) {
        const state::LedgerEntry* entry = entry_of(result.object);
        if (entry == nullptr) return;
        outcomes.push_back(Done(env, *entry, result.object.Describe(),
                                result.existed ? OutcomeAction::kDeleted : OutcomeAction::kAlreadyGone));
      });
  if (!deleted) return fail(deleted.error());
  return outcomes;
}

}  // namespace tputrain::workflow
