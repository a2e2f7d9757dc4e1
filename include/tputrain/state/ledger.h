#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/state/resource_kind.h"

namespace tputrain::state {

// Where one thing tputrain made stands. An entry is written as kCreating *before* the create
// call is sent, so a process killed mid-create still leaves a trace for cleanup.
// kFailed: the create ended but left the resource unusable (a node pool a stockout left in ERROR,
// a queued resource FAILED): it still exists and cleanup deletes it, but nothing adopts it and it
// bills nothing (it never had ready_at).
// kPreempted: a Spot TPU VM Google stopped (PREEMPTED, its queued resource SUSPENDED), seen by a
// refresh: it still exists and cleanup deletes it, nothing adopts it, and it stopped billing by
// preempted_at (the moment tputrain saw it: an upper bound, as the API gives no time).
enum class EntryState { kCreating, kCreated, kDeleting, kDeleted, kFailed, kPreempted };

std::string_view EntryStateName(EntryState state);

struct LedgerEntry {
  ResourceKind kind = ResourceKind::kUnknown;
  std::string name;  // unique within its kind: the API resource name or a composite key
  EntryState state = EntryState::kCreating;
  std::string operation;  // the pending long-running operation, if any
  // False for resources that existed before and were adopted: cleanup leaves them alone
  // unless told --force.
  bool owned = true;
  nlohmann::json details = nlohmann::json::object();  // what deleting it needs (location, role, ...)
  std::string created_at;
  std::string updated_at;
  // When it became usable (a TPU VM READY, a node pool's create ended) and when its deletion
  // ended: the billed interval of what bills by the hour. The API's operation end time when it
  // gave one, else the moment tputrain saw it; RFC 3339 with milliseconds. Empty: not yet (or
  // written by a release before these were recorded).
  std::string ready_at;
  std::string deleted_at;
  std::string preempted_at;
  // The name a kUnknown kind was read with, written back unchanged: a ledger a later release
  // wrote keeps its entries when this one updates the file.
  std::string unknown_kind;

  std::string KindName() const;
};

struct Ledger {
  std::string run_id;
  std::string created_at;
  std::vector<LedgerEntry> entries;
  // A stack's steps that made no resource of their own (an image build, applies, the workload),
  // by step id: {"fingerprint": what the file said, "state": "done", "at": RFC 3339, "detail"}.
  // A second `tputrain up` of the same values finds them done. Written only by `up`.
  nlohmann::json steps = nlohmann::json::object();

  LedgerEntry* Find(ResourceKind kind, const std::string& name);
  // Entries not yet deleted, in the order they were recorded.
  std::vector<const LedgerEntry*> Live() const;
};

// The version of the ledger file's schema this tputrain writes, in its "version" field. Every
// release reads every older version (a file without the field is version 1); a newer one is
// refused with kFailedPrecondition rather than half understood. Bump it only for a change an
// older reader would misread, and add the new release's file to tests/state/golden/.
inline constexpr int kLedgerSchemaVersion = 1;

nlohmann::json ToJson(const Ledger& ledger);
// A field of the wrong type fails with one line naming it ("entries[2].owned: expected true or
// false"); unknown fields are ignored, as a newer release of the same version may add some.
core::Result<Ledger> LedgerFromJson(const nlohmann::json& json);

// One JSON file per run under the state directory, written atomically (temp file, fsync,
// rename) under an exclusive lock, so two tputrain processes cannot corrupt it and a kill
// at any moment leaves either the old or the new file. One store is safe to share between the
// threads of a process (parallel creates and deletes record through it): its updates take an
// in-process mutex as well as the file lock, so callers need no lock of their own.
class LedgerStore {
 public:
  LedgerStore(std::string dir, core::Clock& clock);

  // $XDG_STATE_HOME/tputrain, or ~/.local/state/tputrain.
  static std::string DefaultDir(const core::Env& env);

  const std::string& dir() const { return dir_; }

  // The run a command belongs to: `explicit_id` (--run), else TPUTRAIN_RUN, else the current
  // run recorded by an earlier command, else (when `create` is true) a new run, made current.
  // With `create` (a command that records what it makes) the run's ledger must be readable, or
  // the command is refused here, before any call (kFailedPrecondition naming the file and how to
  // recover): every create records itself before it is sent.
  core::Result<std::string> ResolveRun(const std::string& explicit_id, const core::Env& env, bool create);
  core::Result<std::string> CurrentRun() const;  // empty when none
  core::Status ClearCurrentRun(const std::string& run_id);

  core::Result<Ledger> Load(const std::string& run_id) const;
  // Lock, read, apply `mutate`, write atomically, unlock. `mutate` must not call the store.
  core::Status Update(const std::string& run_id, const std::function<void(Ledger&)>& mutate);
  core::Result<std::vector<std::string>> ListRuns() const;

  // The recorder calls used by provisioning: each is one atomic update.
  core::Status RecordCreating(const std::string& run_id, const LedgerEntry& entry);
  // kCreated sets ready_at, kDeleted deleted_at (once each): `at` when the API said when, else now.
  core::Status RecordState(const std::string& run_id, ResourceKind kind, const std::string& name, EntryState state,
                           const std::string& operation = "", const std::string& at = "");

 private:
  core::Result<std::string> ResolveRunId(const std::string& explicit_id, const core::Env& env, bool create);
  core::Status CheckRecordable(const std::string& run_id) const;
  std::string PathOf(const std::string& run_id) const;
  std::string Timestamp() const;

  std::string dir_;
  core::Clock& clock_;
  // The flock is per open file description, so it also orders threads today; the mutex makes
  // that a property of this class rather than of the lock flavour, and orders the temp file
  // name (one per process) explicitly.
  std::mutex mutex_;
};

// Run ids are safe as file names: letters, digits, '-', '_', '.', at most 64 characters. Ledgers
// of any such id are read (earlier releases accepted them all).
core::Status ValidateRunId(const std::string& run_id);

// A run that records resources labels them tputrain-run=ID, and a label value holds only
// lowercase letters, digits, '-' and '_', at most 63 of them: what every new run id must be.
// `source` is where the id came from (--run, TPUTRAIN_RUN), named in the error.
inline constexpr size_t kMaxRunIdLength = 63;
core::Status ValidateNewRunId(std::string_view source, const std::string& run_id);

}  // namespace tputrain::state
