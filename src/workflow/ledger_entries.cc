#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow {

namespace {

state::LedgerEntry K8sObjectEntry(const std::string& access_id, nlohmann::json access, const k8s::Object& object,
                                  bool owned) {
  state::LedgerEntry entry;
  entry.kind = "k8s-object";
  entry.name = access_id + "|" + object.api_version + "|" + object.kind + "|" + object.ns + "|" + object.name;
  entry.owned = owned;
  entry.details = {{"api_version", object.api_version},
                   {"kind", object.kind},
                   {"namespace", object.ns},
                   {"name", object.name},
                   {"access", std::move(access)}};
  return entry;
}

}  // namespace

state::LedgerEntry K8sObjectEntry(const state::AccessRecord& access, const k8s::Object& object, bool owned) {
  return K8sObjectEntry(access.Id(), state::ToJson(access), object, owned);
}

core::Result<state::AccessRecord> AccessOf(const state::LedgerEntry& entry) {
  auto it = entry.details.find("access");
  if (it == entry.details.end()) {
    return core::Fail(core::Error::Internal("run ledger: " + entry.kind + " " + entry.name + ": no access record"));
  }
  return state::AccessRecordFromJson(*it, entry.kind + " " + entry.name + ": access");
}

std::string AccessId(const nlohmann::json& access) {
  auto record = state::AccessRecordFromJson(access);
  return record ? record->Id() : "kubeconfig:";
}

state::LedgerEntry K8sObjectEntry(const nlohmann::json& access, const k8s::Object& object, bool owned) {
  return K8sObjectEntry(AccessId(access), access, object, owned);
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
