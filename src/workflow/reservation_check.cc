#include "reservation_check.h"

#include <map>

#include "capacity_problem.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/gcp/compute/reservations.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/workflow/capacity.h"

namespace tputrain::workflow::internal {
namespace {

core::Error Refused(const std::string& message) {
  return core::Error::Make(core::ErrorKind::kFailedPrecondition, "--reservation: " + message);
}

// What the resources naming one reservation ask of it.
struct Demand {
  std::string project;      // the reservation's
  std::string reservation;  // its name
  std::string zone;         // "" when the pool may land in any zone of `region`
  std::string region;
  std::string machine_type;
  int64_t hosts = 0;
};

// `holder` names what would draw on the reservation ("pool", "queued resource").
core::Status CheckDemand(ProvisionEnv& env, const Demand& demand, const std::string& holder) {
  const std::string& name = demand.reservation;
  std::optional<gcp::compute::Reservation> found;
  if (!demand.zone.empty()) {
    auto read = gcp::compute::GetReservation(env.transport, env.endpoints.compute, demand.project, demand.zone, name);
    if (read) {
      found = *read;
    } else if (read.error().kind != core::ErrorKind::kNotFound) {
      return core::Fail(read.error());
    }
  }
  if (!found) {
    // Not in the zone (or no zone yet): is it anywhere in the project?
    auto all = gcp::compute::ListAllReservations(env.transport, env.endpoints.compute, demand.project);
    if (!all) return core::Fail(all.error());
    for (const auto& each : *all) {
      if (each.name == name && !found) found = each;
    }
    if (!found) return core::Fail(Refused("no reservation " + name + " in project " + demand.project));
    if (!demand.zone.empty()) {
      return core::Fail(Refused(name + " is in " + found->zone + ", not the " + holder + "'s zone " + demand.zone +
                                " (a reservation holds VMs of one zone)"));
    }
    if (RegionOf(found->zone) != demand.region) {
      return core::Fail(Refused(name + " is in " + found->zone + ", outside the cluster's region " + demand.region));
    }
  }
  if (!found->machine_type.empty() && !demand.machine_type.empty() && found->machine_type != demand.machine_type) {
    return core::Fail(Refused(name + " reserves " + found->machine_type + ", not the slice's " + demand.machine_type));
  }
  if (found->Free() < demand.hosts) {
    return core::Fail(Refused(name + " in " + found->zone + " has " + std::to_string(found->Free()) + " free of " +
                              std::to_string(found->count) + " " + found->machine_type + " hosts; the slice needs " +
                              std::to_string(demand.hosts)));
  }
  env.reporter.Progress("reservation " + name, std::to_string(found->Free()) + " hosts free in " + found->zone + ", " +
                                                   std::to_string(demand.hosts) + " needed");
  return {};
}

}  // namespace

// The zones a pool without node locations of a regional cluster gets: the cluster's own node
// locations (from `cluster_zones` for a cluster being made, else read), empty when GKE picks them.
core::Result<std::vector<std::string>> ClusterZones(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                                    const std::optional<std::vector<std::string>>& cluster_zones) {
  if (cluster_zones) return *cluster_zones;
  gcp::container::Client client(env.transport, env.endpoints.container);
  auto read = client.GetCluster(cluster);
  if (!read) return core::Fail(read.error());
  std::vector<std::string> zones;
  for (const auto& zone : read->raw.value("locations", nlohmann::json::array())) {
    if (zone.is_string()) zones.push_back(zone.get<std::string>());
  }
  return zones;
}

core::Status CheckPoolReservations(ProvisionEnv& env, const gcp::container::ClusterRef& cluster,
                                   const std::vector<gcp::container::NodePoolSpec>& pools,
                                   const std::optional<std::vector<std::string>>& cluster_zones) {
  if (env.dry_run != nullptr) return {};
  std::map<std::string, Demand> demands;          // by the reservation as typed
  std::optional<std::vector<std::string>> zones;  // the cluster's, read once when needed
  for (const auto& pool : pools) {
    if (pool.reservation.empty()) continue;
    auto path = ParseReservation(pool.reservation);
    if (!path) return core::Fail(path.error());
    Demand& demand = demands[pool.reservation];
    demand.project = path->project.empty() ? cluster.project : path->project;
    demand.reservation = path->reservation;
    demand.region = RegionOf(cluster.location);
    if (!pool.node_locations.empty()) {
      demand.zone = pool.node_locations.front();
    } else if (demand.region != cluster.location) {
      demand.zone = cluster.location;
    } else {
      // A regional pool: GKE puts its nodes in each of the cluster's zones, and a reservation
      // holds VMs of one zone.
      if (!zones) {
        auto read = ClusterZones(env, cluster, cluster_zones);
        if (!read) return core::Fail(read.error());
        zones = std::move(*read);
      }
      if (zones->size() != 1) {
        std::string listed;
        for (const auto& zone : *zones) listed += (listed.empty() ? "" : ", ") + zone;
        return core::Fail(Refused(
            "pool " + pool.name + " of regional cluster " + cluster.cluster +
            " would have nodes in each of its zones (" + (listed.empty() ? std::string("GKE's choice") : listed) +
            "), and a reservation holds VMs of one zone: name the reservation's zone with --node-locations ZONE"));
      }
      demand.zone = zones->front();
    }
    demand.machine_type = pool.machine_type;
    demand.hosts += pool.node_count;
  }
  for (const auto& [text, demand] : demands) {
    if (auto held = CheckDemand(env, demand, "pool"); !held) return held;
  }
  return {};
}

core::Status CheckQueuedReservation(ProvisionEnv& env, const std::string& reservation_name,
                                    const std::string& accelerator_type, int nodes) {
  if (env.dry_run != nullptr || reservation_name.empty()) return {};
  // projects/P/locations/ZONE/reservations/R, as ResolveTpuVmCapacity writes it.
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t slash = reservation_name.find('/', start);
    parts.push_back(reservation_name.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() != 6 || parts[0] != "projects" || parts[2] != "locations" || parts[4] != "reservations") {
    return core::Fail(core::Error::Internal("reservation name of another shape: " + reservation_name));
  }
  // reservations/- (--reserved) is any matching reservation, as gcloud's --reserved: there is no
  // one reservation to read.
  if (parts[5] == "-") return {};
  auto slice = catalog::FindSliceType(accelerator_type);
  if (!slice) return core::Fail(slice.error());
  Demand demand{parts[1],
                parts[5],
                parts[3],
                RegionOf(parts[3]),
                slice->machine_type,
                static_cast<int64_t>(slice->hosts) * std::max(nodes, 1)};
  return CheckDemand(env, demand, "queued resource");
}

}  // namespace tputrain::workflow::internal
