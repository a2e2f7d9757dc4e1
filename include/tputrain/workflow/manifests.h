#pragma once

// `tputrain apply -f` and `tputrain delete -f`: the objects of a manifest file (or stdin) applied
// to a cluster, or deleted from it, each recorded in the run's ledger.
#include <chrono>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

struct ManifestApplyRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;
  std::string file;  // "-": the stream given
  bool force_conflicts = false;
  std::string queue;     // a Kueue LocalQueue the workloads are labelled for
  bool dry_run = false;  // the server validates, stores nothing
};

// Reads the manifests (bounded), opens the run's ledger (one that cannot record refuses before
// any call), connects, labels the workloads for the queue and applies them all (ApplyRecorded);
// `on_applied` sees each as it is applied.
core::Result<std::vector<k8s::ApplyResult>> ApplyManifests(
    Root& root, const ManifestApplyRequest& request, std::istream& in,
    const std::function<void(const k8s::ApplyResult&)>& on_applied);
// apply --format json: each object with its action and resourceVersion, and whether it was a dry run.
nlohmann::json ToJson(const std::vector<k8s::ApplyResult>& applied, bool dry_run);

struct ManifestDeleteRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;
  std::string file;            // "-": the stream given
  bool wait = true;            // until each object is gone
  std::string timeout = "5m";  // how long each object may take to go, core::ParseDuration's grammar
  bool dry_run = false;
};

// Checks --timeout, reads the manifests, connects and deletes them in reverse order (DeleteRecorded); `on_deleted`
// sees each as it goes.
core::Result<std::vector<k8s::DeleteResult>> DeleteManifests(
    Root& root, const ManifestDeleteRequest& request, std::istream& in,
    const std::function<void(const k8s::DeleteResult&)>& on_deleted);
// delete --format json: each object and whether it was there to delete.
nlohmann::json ToJson(const std::vector<k8s::DeleteResult>& deleted);

}  // namespace tputrain::workflow
