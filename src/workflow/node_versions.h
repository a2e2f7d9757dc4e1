#pragma once

// The GKE versions TPU generations need (private to the workflow module): a cluster asked for
// below one is refused before any call, and a pool of such a generation is pinned to its
// cluster's version, so that it cannot come up on an older default.
#include <vector>

#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow::internal {

// Before a cluster create with `pools`: a generation with a minimum (tpu7x) needs a
// --cluster-version at or above it (the cluster's default may be older). One usage line naming
// --cluster-version and the minimum.
core::Status CheckClusterVersion(const gcp::container::ClusterSpec& cluster,
                                 const std::vector<gcp::container::NodePoolSpec>& pools);

// Reads the cluster (once, and only when a pool needs it) and pins each such pool's version to the
// cluster's: a cluster below the minimum is one usage line naming --cluster and the minimum, and
// nothing is created. --dry-run reads nothing and leaves the versions as given.
core::Result<std::vector<gcp::container::NodePoolSpec>> PinNodeVersions(
    ProvisionEnv& env, const gcp::container::ClusterRef& cluster, std::vector<gcp::container::NodePoolSpec> pools);

}  // namespace tputrain::workflow::internal
