#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/workflow/provision.h"

// Creating where the chips are: each zone of a list in turn until one has capacity (SkyPilot's
// failover, faithful to each API's answers), optionally cycling the list until a deadline.
namespace tputrain::workflow {

struct ZoneFailover {
  std::vector<std::string> zones;  // in order; one zone is a plain create
  // --zones auto: the zones the catalog lists for the generation (in the cluster's region for a
  // pool), each checked with the TPU API's acceleratorTypes.list when the create starts.
  bool auto_zones = false;
  bool retry_until_up = false;  // after a round with no capacity, wait `retry_gap` and go again
  // SkyPilot's gap between rounds. No new round starts past env.poll.timeout (--timeout); with
  // none, rounds go on until Ctrl-C.
  std::chrono::milliseconds retry_gap{30000};
};

// Whether `location` names a zone ("us-east5-a") rather than a region.
bool IsZone(const std::string& location);

// The flags as typed.
struct FailoverFlags {
  // Each --zones as given: us-east5-a,us-east5-b (split here, so that an empty element is seen),
  // or auto.
  std::vector<std::string> zones;
  bool retry_until_up = false;  // --retry-until-up
  std::string retry_gap;        // --retry-gap (default 30s)
  // The --zone (--location) given on the same command line, where --zones would replace it
  // (tpu-vm create); empty where --location means something else (a node pool's cluster).
  std::string replaced_zone;
};

// The zones --zones names, in order: each value split at commas. An empty element (a trailing or
// doubled comma, an unset variable) is a usage error naming --zones, as CLI11 would drop it.
core::Result<std::vector<std::string>> ZonesOf(const std::vector<std::string>& given);

// Checks the flags: zones only, no empty element, no repeats, each in the region of `region_of`
// when it is given (a GKE cluster's location: a pool's zones are its cluster's), and listing the
// --zone it replaces, if one was given. With no --zones the plan is `location` alone. Each failure is one
// usage line naming the flag.
core::Result<ZoneFailover> ResolveFailover(const FailoverFlags& flags, const std::string& location,
                                           const std::string& region_of = "");

// --async with a plan of more than one try (several zones, auto, --retry-until-up): a stockout
// shows only when a zone's create ends, so a command that does not wait for it would exit 0 and
// never try the next zone. One usage line naming --async.
core::Status CheckAsyncFailover(const ZoneFailover& failover, bool async);

// Creates what `attempt` makes in each zone in turn. A stockout moves on to the next zone once
// `clean_up` has deleted what the attempt left (a GKE pool in ERROR; nothing for a TPU VM the
// API never made); a quota error skips the rest of its region (quota is regional); anything else
// (a reservation short, a bad request) ends at once. The outcomes gain details.zone and
// details.attempts (each zone tried, and why it failed), kept in the ledger too; when no zone
// has capacity the error lists every attempt on one line.
core::Result<std::vector<Outcome>> CreateInAnyZone(
    ProvisionEnv& env, const ZoneFailover& failover, const std::string& task,
    const std::function<core::Result<std::vector<Outcome>>(const std::string& zone)>& attempt,
    const std::function<core::Result<std::vector<Outcome>>(const std::string& zone)>& clean_up);

// Node pools in the first zone of `failover` (each zone of the cluster's region) with capacity:
// each attempt sets the pools' node locations to that zone; a stocked-out attempt's pools are
// deleted (GKE's retry of them holds the cluster: that is waited out) before the next.
core::Result<std::vector<Outcome>> CreateNodePoolsInAnyZone(ProvisionEnv& env,
                                                            const gcp::container::ClusterRef& cluster,
                                                            const std::vector<gcp::container::NodePoolSpec>& pools,
                                                            const ZoneFailover& failover);

// TPU VMs `names` of `project` in the first zone of `failover` with capacity: `create` makes them
// in one zone (CreateTpuVms, or CreateRayTpuVms); a stocked-out zone's VMs are deleted (the API
// leaves none; a half-made one would be) before the next.
using TpuVmsCreate = std::function<core::Result<std::vector<Outcome>>(
    const std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>>& vms)>;
core::Result<std::vector<Outcome>> CreateTpuVmsInAnyZone(ProvisionEnv& env, const ZoneFailover& failover,
                                                         const std::string& project,
                                                         const std::vector<std::string>& names,
                                                         const gcp::tpu::NodeSpec& spec, const TpuVmsCreate& create);

}  // namespace tputrain::workflow
