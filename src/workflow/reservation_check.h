#pragma once

// Before a pool that names a reservation is created: can the reservation hold it? (private to
// the workflow module; xpk checks the same before its pools.)
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow::internal {

// Reads each reservation the pools name (Compute reservations.get, in the pool's zone; every
// zone's when the pool's zone is not known yet) and refuses in one line, before any create, when
// it is missing, in another zone, of another machine type, or has fewer free hosts (count -
// inUseCount) than the pools naming it need. Nothing is read under --dry-run. Blocks and
// sub-blocks are checked through their reservation only.
core::Status CheckPoolReservations(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                   const std::vector<gcp::container::NodePoolSpec>& pools);

}  // namespace tputrain::workflow::internal
