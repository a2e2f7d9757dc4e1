#pragma once

// `tputrain apply -f` and `tputrain delete -f`: the objects of a manifest file (or stdin) applied
// to a cluster, or deleted from it, each recorded in the run's ledger.
#include <chrono>
#include <functional>
#include <istream>
#include <string>
#include <vector>

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

struct ManifestDeleteRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;
  std::string file;  // "-": the stream given
  bool wait = true;  // until each object is gone
  std::chrono::milliseconds timeout{300'000};
  bool dry_run = false;
};

// Reads the manifests, connects and deletes them in reverse order (DeleteRecorded); `on_deleted`
// sees each as it goes.
core::Result<std::vector<k8s::DeleteResult>> DeleteManifests(
    Root& root, const ManifestDeleteRequest& request, std::istream& in,
    const std::function<void(const k8s::DeleteResult&)>& on_deleted);

}  // namespace tputrain::workflow
