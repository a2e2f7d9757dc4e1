// The ledger file's schema: the one reader and the one writer of the most durable thing
// tputrain writes. A ledger outlives the release that wrote it (cleanup runs days later, often
// after an upgrade), so every release reads every older version; tests/state/golden holds one
// file per version, as that version's release wrote it.
#include <algorithm>
#include <iterator>

#include "tputrain/state/ledger.h"

namespace tputrain::state {
namespace {

using nlohmann::json;

constexpr EntryState kAllStates[] = {EntryState::kCreating, EntryState::kCreated, EntryState::kDeleting,
                                     EntryState::kDeleted,  EntryState::kFailed,  EntryState::kPreempted};

core::Error Malformed(const std::string& field, const std::string& expected) {
  auto error = core::Error::Internal(field + ": expected " + expected);
  error.where = "ledger";
  return error;
}

// The string at json[key]: absent gives `fallback`, or an error when `required`.
core::Result<std::string> StringField(const json& object, const char* key, const std::string& where, bool required,
                                      std::string fallback = "") {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return core::Fail(Malformed(where + key, "a string (it is missing)"));
    return fallback;
  }
  if (!it->is_string()) return core::Fail(Malformed(where + key, "a string"));
  return it->get<std::string>();
}

core::Result<int> SchemaVersion(const json& object) {
  auto it = object.find("version");
  if (it == object.end()) return 1;  // the first releases wrote no version
  if (!it->is_number_integer() || it->get<int64_t>() < 1) return core::Fail(Malformed("version", "a positive integer"));
  int64_t version = it->get<int64_t>();
  if (version > kLedgerSchemaVersion) {
    auto error = core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                   "written by a newer tputrain (ledger schema version " + std::to_string(version) +
                                       "; this tputrain reads up to " + std::to_string(kLedgerSchemaVersion) +
                                       "): use the tputrain release that wrote it, or a newer one");
    error.where = "ledger";
    return core::Fail(error);
  }
  return static_cast<int>(version);
}

core::Result<LedgerEntry> EntryFromJson(const json& item, const std::string& where) {
  if (!item.is_object()) return core::Fail(Malformed(where.substr(0, where.size() - 1), "an object"));
  LedgerEntry entry;
  auto kind = StringField(item, "kind", where, true);
  if (!kind) return core::Fail(kind.error());
  entry.kind = KindFromName(*kind);
  if (entry.kind == ResourceKind::kUnknown) entry.unknown_kind = std::move(*kind);
  auto name = StringField(item, "name", where, true);
  if (!name) return core::Fail(name.error());
  entry.name = std::move(*name);
  auto state = StringField(item, "state", where, true);
  if (!state) return core::Fail(state.error());
  auto known = std::find_if(std::begin(kAllStates), std::end(kAllStates),
                            [&](EntryState s) { return EntryStateName(s) == *state; });
  if (known == std::end(kAllStates)) {
    return core::Fail(
        Malformed(where + "state", "creating, created, deleting, deleted, failed or preempted, got '" + *state + "'"));
  }
  entry.state = *known;
  auto operation = StringField(item, "operation", where, false);
  if (!operation) return core::Fail(operation.error());
  entry.operation = std::move(*operation);
  if (auto owned = item.find("owned"); owned != item.end()) {
    if (!owned->is_boolean()) return core::Fail(Malformed(where + "owned", "true or false"));
    entry.owned = owned->get<bool>();
  }
  if (auto details = item.find("details"); details != item.end()) {
    if (!details->is_object()) return core::Fail(Malformed(where + "details", "an object"));
    entry.details = *details;
  }
  auto created_at = StringField(item, "created_at", where, false);
  if (!created_at) return core::Fail(created_at.error());
  entry.created_at = std::move(*created_at);
  auto updated_at = StringField(item, "updated_at", where, false);
  if (!updated_at) return core::Fail(updated_at.error());
  entry.updated_at = std::move(*updated_at);
  for (auto [key, field] : {std::pair{"ready_at", &entry.ready_at}, std::pair{"deleted_at", &entry.deleted_at},
                            std::pair{"preempted_at", &entry.preempted_at}}) {
    auto value = StringField(item, key, where, false);
    if (!value) return core::Fail(value.error());
    *field = std::move(*value);
  }
  return entry;
}

}  // namespace

json ToJson(const Ledger& ledger) {
  json entries = json::array();
  for (const auto& entry : ledger.entries) {
    entries.push_back({{"kind", entry.KindName()},
                       {"name", entry.name},
                       {"state", EntryStateName(entry.state)},
                       {"operation", entry.operation},
                       {"owned", entry.owned},
                       {"details", entry.details},
                       {"created_at", entry.created_at},
                       {"updated_at", entry.updated_at}});
    if (!entry.ready_at.empty()) entries.back()["ready_at"] = entry.ready_at;
    if (!entry.deleted_at.empty()) entries.back()["deleted_at"] = entry.deleted_at;
    if (!entry.preempted_at.empty()) entries.back()["preempted_at"] = entry.preempted_at;
  }
  json document = {{"version", kLedgerSchemaVersion},
                   {"run_id", ledger.run_id},
                   {"created_at", ledger.created_at},
                   {"entries", entries}};
  if (!ledger.steps.empty()) document["steps"] = ledger.steps;
  return document;
}

core::Result<Ledger> LedgerFromJson(const json& document) {
  if (!document.is_object()) return core::Fail(Malformed("the ledger", "a JSON object"));
  auto version = SchemaVersion(document);
  if (!version) return core::Fail(version.error());
  Ledger ledger;
  auto run_id = StringField(document, "run_id", "", true);
  if (!run_id) return core::Fail(run_id.error());
  ledger.run_id = std::move(*run_id);
  auto created_at = StringField(document, "created_at", "", false);
  if (!created_at) return core::Fail(created_at.error());
  ledger.created_at = std::move(*created_at);
  auto entries = document.find("entries");
  if (entries == document.end() || !entries->is_array()) return core::Fail(Malformed("entries", "a list"));
  for (size_t i = 0; i < entries->size(); ++i) {
    auto entry = EntryFromJson((*entries)[i], "entries[" + std::to_string(i) + "].");
    if (!entry) return core::Fail(entry.error());
    ledger.entries.push_back(std::move(*entry));
  }
  // Optional (a release before stack files wrote none); a malformed one is not worth refusing
  // the ledger over: it only spares a second `up` some work.
  if (auto steps = document.find("steps"); steps != document.end() && steps->is_object()) ledger.steps = *steps;
  return ledger;
}

}  // namespace tputrain::state
