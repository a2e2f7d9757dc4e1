#include "reservations.h"

#include <map>

#include "tpu_node_common.h"

namespace tputrain::emulator {

using nlohmann::json;

namespace {

const json& Member(const json& object, const char* key) {
  static const json kAbsent = json::object();
  if (!object.is_object()) return kAbsent;
  auto it = object.find(key);
  return it == object.end() ? kAbsent : *it;
}

int64_t Count(const json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (!text.empty() && text.size() < 16 && text.find_first_not_of("0123456789") == std::string::npos) {
      return std::stoll(text);
    }
  }
  return 0;
}

std::string Segment(const std::string& path, size_t index) {
  size_t start = 0;
  for (size_t i = 0; i < index; ++i) {
    start = path.find('/', start);
    if (start == std::string::npos) return "";
    ++start;
  }
  return path.substr(start, path.find('/', start) - start);
}

// "R", "projects/P/reservations/R[/reservationBlocks/B...]" (GKE) in `zone` of `project`.
std::string PoolReservationKey(const std::string& project, const std::string& zone, const std::string& value) {
  if (value.rfind("projects/", 0) == 0 && Segment(value, 2) == "reservations") {
    return "projects/" + Segment(value, 1) + "/zones/" + zone + "/reservations/" + Segment(value, 3);
  }
  if (value.find('/') != std::string::npos) return "";
  return "projects/" + project + "/zones/" + zone + "/reservations/" + value;
}

// "projects/P/locations/Z/reservations/R" (Cloud TPU); "-" (any reservation) names none.
std::string TpuReservationKey(const std::string& name) {
  if (name.rfind("projects/", 0) != 0 || Segment(name, 2) != "locations" || Segment(name, 4) != "reservations")
    return "";
  const std::string reservation = Segment(name, 5);
  if (reservation.empty() || reservation == "-") return "";
  return "projects/" + Segment(name, 1) + "/zones/" + Segment(name, 3) + "/reservations/" + reservation;
}

std::vector<ReservedDemand> SpecsDemand(const json& resource, const std::string& key) {
  std::vector<ReservedDemand> demands;
  for (const auto& spec : Member(Member(resource, "tpu"), "nodeSpec")) {
    auto slice = SliceOf(spec.value("node", json::object()));
    auto ids = NodeIdsOf(spec);
    if (!slice || !ids) continue;
    demands.push_back({key, slice->machine_type, slice->hosts * static_cast<int64_t>(ids->size())});
  }
  return demands;
}

template <typename Visit>
void ForEachUse(const json& world, Visit visit) {
  for (const auto& [key, cluster] : Member(world, "clusters").items()) {
    for (const auto& pool : Member(cluster, "nodePools")) {
      if (pool.value("status", "") == "ERROR") continue;
      for (const auto& demand : NodePoolReservedDemand(key, cluster, pool)) visit(demand);
    }
  }
  for (const auto& [name, node] : Member(world, "tpuNodes").items()) {
    const std::string state = node.value("state", "");
    if (state == "PREEMPTED" || state == "STOPPED") continue;
    if (auto demand = TpuNodeReservedDemand(node)) visit(*demand);
  }
  for (const auto& [name, resource] : Member(world, "queuedResources").items()) {
    if (Member(resource, "state").value("state", "") != "PROVISIONING") continue;
    for (const auto& demand : QueuedResourceReservedDemand(resource)) visit(demand);
  }
}

}  // namespace

std::vector<ReservedDemand> NodePoolReservedDemand(const std::string& cluster_key, const json& cluster,
                                                   const json& pool) {
  std::vector<ReservedDemand> demands;
  const json& config = Member(pool, "config");
  const json& affinity = Member(config, "reservationAffinity");
  if (affinity.value("consumeReservationType", "") != "SPECIFIC_RESERVATION") return demands;
  const json& values = Member(affinity, "values");
  if (!values.is_array() || values.empty() || !values[0].is_string()) return demands;
  const json& count = Member(pool, "initialNodeCount");
  json zones = pool.value("locations", json::array());
  if (!zones.is_array() || zones.empty()) zones = cluster.value("locations", json::array());
  for (const auto& zone : zones) {
    if (!zone.is_string()) continue;
    const std::string key = PoolReservationKey(Segment(cluster_key, 1), zone.get<std::string>(), values[0]);
    if (!key.empty()) demands.push_back({key, config.value("machineType", ""), Count(count)});
  }
  return demands;
}

std::optional<ReservedDemand> TpuNodeReservedDemand(const json& node) {
  // v2alpha1 names it in schedulingConfig; a queued resource's nodes carry their request's.
  std::string name = Member(node, "schedulingConfig").value("reservationName", "");
  if (name.empty()) name = node.value("_reservationName", "");
  const std::string key = TpuReservationKey(name);
  auto slice = SliceOf(node);
  if (key.empty() || !slice) return std::nullopt;
  return ReservedDemand{key, slice->machine_type, slice->hosts};
}

std::vector<ReservedDemand> QueuedResourceReservedDemand(const json& resource) {
  // "-" is bound to one reservation when the queued resource is provisioned.
  const std::string key = TpuReservationKey(resource.value("_reservationName", resource.value("reservationName", "")));
  if (key.empty()) return {};
  return SpecsDemand(resource, key);
}

int64_t QueuedResourceVms(const json& resource) {
  int64_t vms = 0;
  for (const auto& demand : SpecsDemand(resource, "")) vms += demand.vms;
  return vms;
}

std::optional<std::string> AnyReservation(const json& world, const std::string& project, const std::string& zone,
                                          const std::string& machine_type, int64_t vms) {
  const std::string prefix = "projects/" + project + "/zones/" + zone + "/reservations/";
  for (const auto& [key, reservation] : Member(world, "reservations").items()) {
    if (key.rfind(prefix, 0) != 0 || reservation.value("specificReservationRequired", false)) continue;
    const json& specific = Member(reservation, "specificReservation");
    if (Member(specific, "instanceProperties").value("machineType", "") != machine_type) continue;
    if (Count(Member(specific, "count")) - ReservationInUse(world, key) < vms) continue;
    return "projects/" + project + "/locations/" + zone + "/reservations/" + key.substr(prefix.size());
  }
  return std::nullopt;
}

int64_t ReservationInUse(const json& world, const std::string& key) {
  int64_t used = 0;
  ForEachUse(world, [&](const ReservedDemand& demand) {
    if (demand.key == key) used += demand.vms;
  });
  return used;
}

std::optional<ReservationShortfall> ReservationShort(const json& world, const std::vector<ReservedDemand>& demands,
                                                     bool counted) {
  std::map<std::string, ReservedDemand> asked;
  for (const auto& demand : demands) {
    auto& entry = asked[demand.key];
    entry.key = demand.key;
    entry.machine_type = demand.machine_type;
    entry.vms += demand.vms;
  }
  for (const auto& [key, demand] : asked) {
    const json& reservation = Member(Member(world, "reservations"), key.c_str());
    if (reservation.empty()) return ReservationShortfall{ReservationProblem::kMissing, demand, demand.vms};
    const json& specific = Member(reservation, "specificReservation");
    const std::string machine = Member(specific, "instanceProperties").value("machineType", "");
    if (machine != demand.machine_type) {
      return ReservationShortfall{ReservationProblem::kOtherMachine, demand, demand.vms};
    }
    const int64_t free = Count(Member(specific, "count")) - ReservationInUse(world, key) + (counted ? demand.vms : 0);
    if (free < demand.vms)
      return ReservationShortfall{ReservationProblem::kShort, demand, demand.vms - std::max<int64_t>(free, 0)};
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
