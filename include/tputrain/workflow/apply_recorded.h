#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/watch.h"
#include "tputrain/workflow/ledger_entries.h"

// Server-side apply with the run ledger kept true: every object is recorded before it is sent,
// so `tputrain cleanup` deletes what tputrain applied (workloads before node pools and clusters).
namespace tputrain::workflow {

struct ResolvedObject {
  k8s::Object object;  // with its namespace filled in (empty for cluster-scoped kinds), as Apply sends it
  std::string path;    // its path on the API server; empty for a kind whose CRD the same manifest brings
};

// The namespace and path of each object, as k8s::Apply will resolve them. A kind not yet served
// is accepted when `objects` holds its CustomResourceDefinition (scope from the CRD).
core::Result<std::vector<ResolvedObject>> ResolveObjects(k8s::Client& client, k8s::Discovery& discovery,
                                                         const std::vector<k8s::Object>& objects,
                                                         const std::string& ns);

struct RecordedApplyEnv : core::Runtime {
  k8s::Client& client;
  k8s::Discovery& discovery;
  state::AccessRecord access;  // how cleanup reaches this cluster again
  LedgerRecorder ledger;
};

// What an apply does with an object that is already there and that the run's ledger does not
// hold as its own: another workload's, another run's (or this run's, deleted since and made again
// by someone else).
enum class OthersObjects {
  kAdopt,     // apply over it, recorded as not owned: cleanup leaves it (`tputrain apply`, as kubectl)
  kRefuse,    // refuse, before anything is recorded or sent, naming each one (serve up)
  kTakeOver,  // apply over it, recorded as owned: cleanup deletes it (serve up --force)
};

// What `serve up` asks of an apply beyond the default (adopt, no model).
struct ServeApply {
  // Recorded with each object, so that `serve down --model M` finds what it applied in the ledger
  // without rendering the template (and its values) again.
  std::string model;
  OthersObjects others = OthersObjects::kAdopt;
  std::string force_flag = "--force";  // what kRefuse's error names as the way to take over
};

// Records each object (`creating`; not owned when it already exists), applies them all in
// dependency order, and marks each `created` once the server has it. A dry run records nothing.
// `serve` says what an object that exists and is not the run's becomes, and the model to record.
core::Result<std::vector<k8s::ApplyResult>> ApplyRecorded(
    RecordedApplyEnv& env, const std::vector<k8s::Object>& objects, const k8s::ApplyOptions& options,
    const std::function<void(const k8s::ApplyResult&)>& on_applied = {}, const ServeApply& serve = {});

// What a run's ledger records `serve up` applied for `serve_model` on the cluster `access` names
// (in `ns` when it is not empty).
struct ServedRecord {
  bool recorded = false;          // it recorded objects for the model there, deleted since or not
  std::vector<k8s::Object> live;  // those still live and the run's own, in the order applied: what serve down deletes
};
core::Result<ServedRecord> RecordedServe(const state::LedgerStore& store, const std::string& run_id,
                                         const state::AccessRecord& access, const std::string& serve_model,
                                         const std::string& ns);

// The run `serve down` deletes from, resolved from --run, TPUTRAIN_RUN or the current run: it must
// have a ledger in `store`, or nothing can be the run's. A usage error as `cleanup --run` gives for
// an unknown run (exit 2), before any call.
core::Status CheckRecordedRun(const state::LedgerStore& store, const std::string& run_id);

struct RecordedDeleteEnv : core::Runtime {
  k8s::Client& client;
  k8s::Discovery& discovery;
  state::AccessRecord access;
  // The run whose ledger may hold the objects; none (null store or empty run): nothing to mark.
  state::LedgerStore* store = nullptr;
  std::string run_id;
};

// Those of `objects` (as rendered: their namespaces filled in here) that the run's ledger holds
// live and owned on the env's cluster, in their order: what a template rendered again may delete.
core::Result<std::vector<k8s::Object>> RecordedAmong(RecordedDeleteEnv& env, const std::vector<k8s::Object>& objects,
                                                     const std::string& ns);

// Deletes `objects` (k8s::Delete: reverse order, waiting as `options` say) and marks each one the
// run's ledger holds as deleted, so a later cleanup does not look for it again. A dry run marks
// nothing.
core::Result<std::vector<k8s::DeleteResult>> DeleteRecorded(
    RecordedDeleteEnv& env, std::vector<k8s::Object> objects, const k8s::DeleteOptions& options,
    const std::function<void(const k8s::DeleteResult&)>& on_deleted = {});

}  // namespace tputrain::workflow
