#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow {

std::string AccessId(const nlohmann::json& access) {
  if (access.is_object() && access.contains("gke_cluster")) return "gke:" + access.value("gke_cluster", "");
  return "kubeconfig:" + (access.is_object() ? access.value("context", "") : std::string());
}

state::LedgerEntry K8sObjectEntry(const nlohmann::json& access, const k8s::Object& object, bool owned) {
  state::LedgerEntry entry;
  entry.kind = "k8s-object";
  entry.name = AccessId(access) + "|" + object.api_version + "|" + object.kind + "|" + object.ns + "|" + object.name;
  entry.owned = owned;
  entry.details = {{"api_version", object.api_version},
                   {"kind", object.kind},
                   {"namespace", object.ns},
                   {"name", object.name},
                   {"access", access}};
  return entry;
}

state::LedgerEntry RayJobEntry(const std::string& submission_id, const nlohmann::json& details) {
  state::LedgerEntry entry;
  entry.kind = "ray-job";
  entry.name = submission_id;
  entry.details = details;
  return entry;
}

core::Status LedgerRecorder::Creating(const state::LedgerEntry& entry) const {
  if (store == nullptr) return {};
  return store->RecordCreating(run_id, entry);
}

core::Status LedgerRecorder::Created(const state::LedgerEntry& entry) const {
  if (store == nullptr) return {};
  return store->RecordState(run_id, entry.kind, entry.name, state::EntryState::kCreated);
}

}  // namespace tputrain::workflow
