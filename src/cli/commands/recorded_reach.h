#pragma once

#include "tputrain/cli/context.h"
#include "tputrain/workflow/cleanup.h"

namespace tputrain::cli {

// How cleanup reaches what the run ledger names outside Google's APIs, through the Stack: the
// Kubernetes cluster of an access record (a GKE cluster, or a kubeconfig context), and the Ray
// Jobs API a job was submitted to (an address, or a RayCluster behind the API server's proxy).
workflow::CleanupReach RecordedReach(Context& context);

}  // namespace tputrain::cli
