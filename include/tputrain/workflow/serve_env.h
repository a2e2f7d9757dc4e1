#pragma once

// What serve up (every engine) runs with on the cluster side: the run's ledger, the connection,
// the operator manifests fetched only when one is installed, and node pools created in the GKE
// cluster by the workflow itself (pool_creator.h).
#include <functional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {

// An operator's release manifest (lws, jobset), from `manifest` (a file or URL; empty: its pinned
// release), read when called.
using OperatorLoader = std::function<core::Result<std::vector<k8s::Object>>()>;
OperatorLoader OperatorLoaderFor(Root& root, const std::string& name, const std::string& manifest);

struct ServeUpAccess {
  KubeAccessFlags access;
  LedgerFlags ledger;           // --run, --state-dir
  std::string lws_manifest;     // --lws-manifest; empty: the pinned release's
  std::string jobset_manifest;  // --jobset-manifest (Saxml); likewise
  bool dry_run = false;
};

// The run's ledger opened first (one that cannot record refuses the command before any call), the
// cluster connected, then `run` with the env.
core::Status WithServeUpEnv(Root& root, const ServeUpAccess& request,
                            const std::function<core::Status(ServeUpEnv&)>& run);

}  // namespace tputrain::workflow
