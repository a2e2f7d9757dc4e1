#pragma once

// How serve up and queue create make node pools in the GKE cluster they work on: the workflow
// makes them itself, through the root's Google clients, recorded in the run's ledger.
#include <functional>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

// Creates node pools in the GKE cluster of `access` (--cluster), recorded in `ledger`'s run;
// empty when the cluster is reached through a kubeconfig.
using PoolCreator = std::function<core::Status(const std::vector<gcp::container::NodePoolSpec>&)>;
PoolCreator PoolCreatorFor(Root& root, const KubeAccessFlags& access, const ApplyLedger& ledger);

}  // namespace tputrain::workflow
