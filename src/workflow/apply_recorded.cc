#include "tputrain/workflow/apply_recorded.h"

#include <map>
#include <set>

#include "tputrain/core/json_fields.h"

namespace tputrain::workflow {
namespace {

// The detail of a k8s-object entry naming the model it serves (RecordedServe).
constexpr const char* kServeModelField = "serve_model";

// The CRD in `objects` that defines `group`/`kind`, if any.
const k8s::Object* DefiningCrd(const std::vector<k8s::Object>& objects, const std::string& api_version,
                               const std::string& kind) {
  std::string group = api_version.substr(0, api_version.find('/'));
  for (const auto& object : objects) {
    if (object.kind != "CustomResourceDefinition" || !object.json.contains("spec")) continue;
    const auto& spec = object.json["spec"];
    if (core::StringAt(spec, "group") == group && core::StringAt(core::ObjectAt(spec, "names"), "kind") == kind) {
      return &object;
    }
  }
  return nullptr;
}

// The ledger names of the k8s objects the run made and still holds (live and owned); none
// without a ledger.
core::Result<std::set<std::string>> OwnedByRun(const LedgerRecorder& recorder) {
  std::set<std::string> owned;
  if (recorder.store == nullptr || recorder.run_id.empty()) return owned;
  auto ledger = recorder.store->Load(recorder.run_id);
  if (!ledger && ledger.error().kind == core::ErrorKind::kNotFound) return owned;
  if (!ledger) return core::Fail(ledger.error());
  for (const auto* entry : ledger->Live()) {
    if (entry->kind == state::ResourceKind::kK8sObject && entry->owned) owned.insert(entry->name);
  }
  return owned;
}

}  // namespace

core::Result<std::vector<ResolvedObject>> ResolveObjects(k8s::Client& client, k8s::Discovery& discovery,
                                                         const std::vector<k8s::Object>& objects,
                                                         const std::string& ns) {
  std::vector<ResolvedObject> resolved;
  for (auto object : objects) {
    bool namespaced = true;
    std::string path;
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (info) {
      namespaced = info->namespaced;
    } else if (const auto* crd = DefiningCrd(objects, object.api_version, object.kind)) {
      namespaced = core::StringAt(core::ObjectAt(crd->json, "spec"), "scope") != "Cluster";
    } else {
      auto error = info.error();
      error.message = object.source + ": " + error.message;
      return core::Fail(error);
    }
    if (namespaced) {
      auto object_ns = k8s::NamespaceFor(object, ns, client.default_namespace());
      if (!object_ns) return core::Fail(object_ns.error());
      object.ns = *object_ns;
      object.json["metadata"]["namespace"] = object.ns;
    } else {
      object.ns.clear();
      object.json["metadata"].erase("namespace");
    }
    if (info) path = info->ObjectPath(object.ns, object.name);
    resolved.push_back({std::move(object), std::move(path)});
  }
  return resolved;
}

core::Status CheckRecordedRun(const state::LedgerStore& store, const std::string& run_id) {
  if (run_id.empty()) {
    return core::Fail(core::Error::Usage(
        "--run: serve down deletes what a run's serve up recorded; name the run (--run or TPUTRAIN_RUN; tputrain "
        "runs list)"));
  }
  auto ledger = store.Load(run_id);
  if (!ledger && ledger.error().kind == core::ErrorKind::kNotFound) {
    return core::Fail(core::Error::Usage("--run: no run '" + run_id + "' in " + store.dir() +
                                         " (tputrain runs list); nothing deleted"));
  }
  if (!ledger) return core::Fail(ledger.error());
  return {};
}

core::Result<ServedRecord> RecordedServe(const state::LedgerStore& store, const std::string& run_id,
                                         const state::AccessRecord& access, const std::string& serve_model,
                                         const std::string& ns) {
  auto ledger = store.Load(run_id);
  if (!ledger) return core::Fail(ledger.error());
  ServedRecord record;
  const std::string on_cluster = access.Id() + "|";
  for (const auto& entry : ledger->entries) {
    if (entry.kind != state::ResourceKind::kK8sObject || !entry.name.starts_with(on_cluster)) continue;
    const auto& details = entry.details;
    if (details.value(kServeModelField, "") != serve_model) continue;
    k8s::Object object;
    object.api_version = details.value("api_version", "");
    object.kind = details.value("kind", "");
    object.ns = details.value("namespace", "");
    object.name = details.value("name", "");
    if (object.api_version.empty() || object.kind.empty() || object.name.empty()) {
      return core::Fail(core::Error::Internal("run ledger " + run_id + ": k8s-object " + entry.name +
                                              " lacks api_version, kind or name"));
    }
    if (!ns.empty() && !object.ns.empty() && object.ns != ns) continue;
    record.recorded = true;
    if (entry.state == state::EntryState::kDeleted || !entry.owned) continue;
    object.json = {{"apiVersion", object.api_version}, {"kind", object.kind}, {"metadata", {{"name", object.name}}}};
    if (!object.ns.empty()) object.json["metadata"]["namespace"] = object.ns;
    object.source = "run " + run_id;
    record.live.push_back(std::move(object));
  }
  return record;
}

core::Result<std::vector<k8s::Object>> RecordedAmong(RecordedDeleteEnv& env, const std::vector<k8s::Object>& objects,
                                                     const std::string& ns) {
  std::vector<k8s::Object> held;
  if (env.store == nullptr || env.run_id.empty()) return held;
  auto ledger = env.store->Load(env.run_id);
  if (!ledger) return core::Fail(ledger.error());
  std::set<std::string> owned;
  for (const auto* entry : ledger->Live()) {
    if (entry->kind == state::ResourceKind::kK8sObject && entry->owned) owned.insert(entry->name);
  }
  auto resolved = ResolveObjects(env.client, env.discovery, objects, ns);
  if (!resolved) return core::Fail(resolved.error());
  for (auto& item : *resolved) {
    if (owned.contains(K8sObjectEntry(env.access, item.object, true).name)) held.push_back(std::move(item.object));
  }
  return held;
}

core::Result<std::vector<k8s::ApplyResult>> ApplyRecorded(
    RecordedApplyEnv& env, const std::vector<k8s::Object>& objects, const k8s::ApplyOptions& options,
    const std::function<void(const k8s::ApplyResult&)>& on_applied, const ServeApply& serve) {
  auto resolved = ResolveObjects(env.client, env.discovery, objects, options.ns);
  if (!resolved) return core::Fail(resolved.error());
  std::vector<k8s::Object> to_apply;
  std::map<std::string, bool> existed_before;  // ledger name → the object was on the server already
  std::vector<state::LedgerEntry> entries;
  if (!options.dry_run) {
    auto owned = OwnedByRun(env.ledger);
    if (!owned) return core::Fail(owned.error());
    std::string others;  // the existing objects that are not the run's, for kRefuse
    for (const auto& item : *resolved) {
      // One that is already there was made by someone else (or an earlier run): recorded, not
      // owned, unless the run made it or takes it over.
      bool existed = false;
      if (!item.path.empty()) {
        auto existing = env.client.Send("GET", item.path);
        if (!existing) return core::Fail(existing.error());
        if (!existing->ok() && existing->status != 404) {
          return core::Fail(k8s::ErrorFromStatus(existing->status, existing->body, item.object.Describe()));
        }
        existed = existing->ok();
      }
      auto entry = K8sObjectEntry(env.access, item.object, !existed);
      const bool runs_own = owned->contains(entry.name);
      if (existed && !runs_own && serve.others == OthersObjects::kRefuse) {
        others += (others.empty() ? "" : ", ") + item.object.Describe();
      }
      if (existed && serve.others == OthersObjects::kTakeOver) entry.owned = true;
      if (!serve.model.empty()) entry.details[kServeModelField] = serve.model;
      existed_before[entry.name] = existed;
      entries.push_back(std::move(entry));
    }
    if (!others.empty()) {
      const bool one = others.find(", ") == std::string::npos;
      const std::string them = one ? "it" : "them";
      return core::Fail(core::Error::Make(
          core::ErrorKind::kAlreadyExists,
          others + (one ? " already exists" : " already exist") + " and run " + env.ledger.run_id + " did not make " +
              them + " (another workload's, or another run's): nothing was applied; use other names (--set), " +
              "delete " + them + ", or take " + them + " over with " + serve.force_flag + " (serve down then " +
              "deletes " + them + ")"));
    }
    for (const auto& entry : entries) {
      if (auto recorded = env.ledger.Creating(entry); !recorded) return core::Fail(recorded.error());
    }
  }
  for (const auto& item : *resolved) to_apply.push_back(item.object);
  core::Status recorded;
  std::set<std::string> landed;
  auto applied =
      k8s::Apply(env.client, env.discovery, std::move(to_apply), options, env, [&](const k8s::ApplyResult& result) {
        if (!options.dry_run) {
          auto entry = K8sObjectEntry(env.access, result.object, true);
          landed.insert(entry.name);
          auto status = env.ledger.Created(entry);
          if (!status && recorded) recorded = status;
        }
        if (on_applied) on_applied(result);
      });
  if (!applied) {
    // A manifest refused locally (its CRD's schema) was never sent: what did not land is not
    // there to clean up. Any other failure may have reached the server, so its entries stay.
    if (env.ledger.store != nullptr && core::IsUsageError(applied.error())) {
      (void)env.ledger.store->Update(env.ledger.run_id, [&](state::Ledger& ledger) {
        for (const auto& [name, existed] : existed_before) {
          auto* found = ledger.Find(state::ResourceKind::kK8sObject, name);
          if (found == nullptr || landed.contains(name) || found->state != state::EntryState::kCreating) continue;
          found->state = existed ? state::EntryState::kCreated : state::EntryState::kDeleted;
        }
      });
    }
    return core::Fail(applied.error());
  }
  if (!recorded) return core::Fail(recorded.error());
  return applied;
}

core::Result<std::vector<k8s::DeleteResult>> DeleteRecorded(
    RecordedDeleteEnv& env, std::vector<k8s::Object> objects, const k8s::DeleteOptions& options,
    const std::function<void(const k8s::DeleteResult&)>& on_deleted) {
  const bool record = !options.dry_run && env.store != nullptr && !env.run_id.empty();
  auto forget = [&](const k8s::Object& object) {
    const std::string key = K8sObjectEntry(env.access, object, true).name;
    auto status = env.store->Update(env.run_id, [&](state::Ledger& ledger) {
      if (auto* entry = ledger.Find(state::ResourceKind::kK8sObject, key)) entry->state = state::EntryState::kDeleted;
    });
    if (!status && status.error().kind != core::ErrorKind::kNotFound) env.reporter.Warn(status.error().message);
  };
  return k8s::Delete(env.client, env.discovery, std::move(objects), options, env, [&](const k8s::DeleteResult& result) {
    if (record) forget(result.object);
    if (on_deleted) on_deleted(result);
  });
}

}  // namespace tputrain::workflow
