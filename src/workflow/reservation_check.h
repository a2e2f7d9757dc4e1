#pragma once

// Before a pool or a queued resource that names a reservation is created: can the reservation
// hold it? (private to the workflow module; xpk checks the same before its pools.)
#include <optional>
#include <string>
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
// A pool without node locations in a regional cluster gets nodes in each of the cluster's zones
// (`cluster_zones` for a cluster not made yet, empty when GKE is to pick them; else read): it
// may name a reservation only when that is one zone.
core::Status CheckPoolReservations(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                   const std::vector<gcp::container::NodePoolSpec>& pools,
                                   const std::optional<std::vector<std::string>>& cluster_zones = std::nullopt);

// The same for a queued resource of `nodes` TPU VMs (0: one) of `accelerator_type` on
// `reservation_name` (projects/P/locations/ZONE/reservations/R): a reservation that cannot hold
// them would leave the queued resource WAITING_FOR_RESOURCES for ever. Nothing is read when
// `reservation_name` is empty, nor under --dry-run.
core::Status CheckQueuedReservation(ProvisionEnv& env, const std::string& reservation_name,
                                    const std::string& accelerator_type, int nodes);

}  // namespace tputrain::workflow::internal
