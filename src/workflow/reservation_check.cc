#include "reservation_check.h"

#include <map>

#include "capacity_problem.h"
#include "tputrain/gcp/compute/reservations.h"
#include "tputrain/workflow/capacity.h"

namespace tputrain::workflow::internal {
namespace {

core::Error Refused(const std::string& message) {
  return core::Error::Make(core::ErrorKind::kFailedPrecondition, "--reservation: " + message);
}

struct Demand {
  std::string zone;  // "" when the pool may land in any zone of the cluster's region
  std::string machine_type;
  int64_t hosts = 0;
};

}  // namespace

core::Status CheckPoolReservations(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                   const std::vector<gcp::container::NodePoolSpec>& pools) {
  if (env.dry_run != nullptr) return {};
  std::map<std::string, Demand> demands;  // by the reservation as typed
  for (const auto& pool : pools) {
    if (pool.reservation.empty()) continue;
    Demand& demand = demands[pool.reservation];
    if (!pool.node_locations.empty()) {
      demand.zone = pool.node_locations.front();
    } else if (RegionOf(cluster.location) != cluster.location) {
      demand.zone = cluster.location;
    }
    demand.machine_type = pool.machine_type;
    demand.hosts += pool.node_count;
  }
  for (const auto& [text, demand] : demands) {
    auto path = ParseReservation(text);
    if (!path) return core::Fail(path.error());
    const std::string project = path->project.empty() ? cluster.project : path->project;
    std::optional<gcp::compute::Reservation> found;
    if (!demand.zone.empty()) {
      auto read =
          gcp::compute::GetReservation(env.transport, env.endpoints.compute, project, demand.zone, path->reservation);
      if (read) {
        found = *read;
      } else if (read.error().kind != core::ErrorKind::kNotFound) {
        return core::Fail(read.error());
      }
    }
    if (!found) {
      // Not in the pool's zone (or no zone yet): is it anywhere in the project?
      auto all = gcp::compute::ListAllReservations(env.transport, env.endpoints.compute, project);
      if (!all) return core::Fail(all.error());
      for (const auto& each : *all) {
        if (each.name == path->reservation && (demand.zone.empty() || !found)) found = each;
      }
      if (!found) {
        return core::Fail(Refused("no reservation " + path->reservation + " in project " + project));
      }
      if (!demand.zone.empty()) {
        return core::Fail(Refused(path->reservation + " is in " + found->zone + ", not the pool's zone " + demand.zone +
                                  " (a reservation holds VMs of one zone)"));
      }
      if (RegionOf(found->zone) != RegionOf(cluster.location)) {
        return core::Fail(Refused(path->reservation + " is in " + found->zone + ", outside the cluster's region " +
                                  RegionOf(cluster.location)));
      }
    }
    if (!found->machine_type.empty() && !demand.machine_type.empty() && found->machine_type != demand.machine_type) {
      return core::Fail(
          Refused(path->reservation + " reserves " + found->machine_type + ", not the slice's " + demand.machine_type));
    }
    if (found->Free() < demand.hosts) {
      return core::Fail(Refused(path->reservation + " in " + found->zone + " has " + std::to_string(found->Free()) +
                                " free of " + std::to_string(found->count) + " " + found->machine_type +
                                " hosts; the slice needs " + std::to_string(demand.hosts)));
    }
    env.reporter.Progress("reservation " + path->reservation, std::to_string(found->Free()) + " hosts free in " +
                                                                  found->zone + ", " + std::to_string(demand.hosts) +
                                                                  " needed");
  }
  return {};
}

}  // namespace tputrain::workflow::internal
