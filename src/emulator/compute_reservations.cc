#include <regex>

#include "compute_common.h"
#include "operations.h"
#include "reservations.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// Compute Engine v1 zonal reservations (reservations.insert/get/list/delete, as gcloud compute
// reservations create/describe/list/delete use them) and the zonal operations they start. A
// reservation's specificReservation.inUseCount is what the pools and TPU VMs that name it use
// (reservations.h), read as it is asked for.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr ErrorShape kShape = ErrorShape::kComputeLegacy;

std::string ZonePath(const Call& call) { return "projects/" + call.args[0] + "/zones/" + call.args[1] + "/"; }

ApiResponse Invalid(const std::string& message) { return ErrorFor(kShape, ErrorKind::kInvalidArgument, message); }

int64_t CountOf(const json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (!text.empty() && text.size() < 16 && text.find_first_not_of("0123456789") == std::string::npos) {
      return std::stoll(text);
    }
  }
  return -1;
}

// The reservation as Compute shows it, its use counted now.
json Shown(const json& world, const std::string& key, const json& reservation) {
  json shown = Public(reservation);
  if (shown.contains("specificReservation")) {
    shown["specificReservation"]["inUseCount"] = std::to_string(ReservationInUse(world, key));
  }
  return shown;
}

ApiResponse InsertReservation(Call& call) {
  ApiResponse error;
  auto body = call.Body("compute", "Reservation", kShape, error);
  if (!body) return error;
  static const std::regex kName("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  const std::string name = body->value("name", "");
  if (!MatchesBounded(name, kName)) {
    return Invalid("Invalid value for field 'resource.name': '" + name +
                   "'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
  }
  const json specific = body->value("specificReservation", json::object());
  if (!body->contains("aggregateReservation")) {
    if (CountOf(specific.value("count", json())) <= 0) {
      return Invalid("Invalid value for field 'resource.specificReservation.count': '" +
                     specific.value("count", json()).dump() + "'. Must be greater than 0.");
    }
    if (specific.value("instanceProperties", json::object()).value("machineType", "").empty() &&
        !specific.contains("sourceInstanceTemplate")) {
      return Invalid(
          "Invalid value for field 'resource.specificReservation.instanceProperties.machineType': ''. "
          "A machine type is required.");
    }
  }
  const std::string key = ZonePath(call) + "reservations/" + name;
  auto& all = call.world["reservations"];
  if (all.contains(key))
    return ErrorFor(kShape, ErrorKind::kAlreadyExists, "The resource '" + key + "' already exists");
  json reservation = *body;
  reservation["kind"] = "compute#reservation";
  reservation["id"] = std::to_string(ProjectNumber(key) * 1000 + NextId(call.world) % 1000);
  reservation["creationTimestamp"] = Rfc3339(call.now_ms);
  reservation["selfLink"] = ComputeApiBase(call) + key;
  reservation["zone"] = ComputeApiBase(call) + "projects/" + call.args[0] + "/zones/" + call.args[1];
  reservation["status"] = "CREATING";
  if (!reservation.contains("specificReservationRequired")) reservation["specificReservationRequired"] = false;
  if (reservation.contains("specificReservation")) {
    reservation["specificReservation"]["count"] = std::to_string(CountOf(specific.value("count", json())));
  }
  const std::string link = reservation["selfLink"], id = reservation["id"];
  all[key] = std::move(reservation);
  return JsonReply(Public(StartComputeOperation(call, ZonePath(call), "insert", link, id)));
}

ApiResponse GetReservation(Call& call) {
  const std::string key = ZonePath(call) + "reservations/" + call.args[2];
  auto& all = call.world["reservations"];
  auto it = all.find(key);
  if (it == all.end()) return ComputeNotFound(key);
  return JsonReply(Shown(call.world, key, *it));
}

ApiResponse ListReservations(Call& call) {
  const std::string prefix = ZonePath(call) + "reservations/";
  json items = json::array();
  for (const auto& [key, reservation] : call.world["reservations"].items()) {
    if (key.rfind(prefix, 0) == 0) items.push_back(Shown(call.world, key, reservation));
  }
  json reply = {{"kind", "compute#reservationList"},
                {"id", prefix.substr(0, prefix.size() - 1)},
                {"selfLink", ComputeApiBase(call) + prefix.substr(0, prefix.size() - 1)}};
  if (!items.empty()) reply["items"] = std::move(items);
  return JsonReply(reply);
}

// reservations.aggregatedList (gcloud compute reservations list): every zone's, by zone.
ApiResponse AggregatedReservations(Call& call) {
  const std::string prefix = "projects/" + call.args[0] + "/zones/";
  json items = json::object();
  for (const auto& [key, reservation] : call.world["reservations"].items()) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string zone = key.substr(prefix.size(), key.find('/', prefix.size()) - prefix.size());
    items["zones/" + zone]["reservations"].push_back(Shown(call.world, key, reservation));
  }
  return JsonReply({{"kind", "compute#reservationAggregatedList"},
                    {"id", "projects/" + call.args[0] + "/aggregated/reservations"},
                    {"items", items},
                    {"selfLink", ComputeApiBase(call) + "projects/" + call.args[0] + "/aggregated/reservations"}});
}

ApiResponse DeleteReservation(Call& call) {
  const std::string key = ZonePath(call) + "reservations/" + call.args[2];
  auto& all = call.world["reservations"];
  auto it = all.find(key);
  if (it == all.end()) return ComputeNotFound(key);
  (*it)["status"] = "DELETING";
  return JsonReply(
      Public(StartComputeOperation(call, ZonePath(call), "delete", it->value("selfLink", ""), it->value("id", ""))));
}

ApiResponse GetZoneOperation(Call& call) { return GetComputeOperation(call, ZonePath(call), call.args[2]); }

}  // namespace

std::vector<Route> ComputeReservationRoutes() {
  static const std::string zone = "^/compute/v1/projects/([^/]+)/zones/([^/]+)/";
  static const std::string reservations = zone + "reservations", reservation = reservations + "/([^/]+)";
  static const std::string operation = zone + "operations/([^/]+)";
  return {
      {"POST", reservations + "$", "compute.reservations.insert", InsertReservation, kShape, true},
      {"GET", reservations + "$", "compute.reservations.list", ListReservations, kShape},
      {"GET", "^/compute/v1/projects/([^/]+)/aggregated/reservations$", "compute.reservations.aggregatedList",
       AggregatedReservations, kShape},
      {"GET", reservation + "$", "compute.reservations.get", GetReservation, kShape},
      {"DELETE", reservation + "$", "compute.reservations.delete", DeleteReservation, kShape, true},
      {"GET", operation + "$", "compute.zoneOperations.get", GetZoneOperation, kShape},
      // As for global operations: wait answers at once with the operation as it stands.
      {"POST", operation + "/wait$", "compute.zoneOperations.wait", GetZoneOperation, kShape},
  };
}

}  // namespace tputrain::emulator
