#include "tputrain/gcp/compute/reservations.h"

#include <charconv>

#include "api_call.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/resource_name.h"

namespace tputrain::gcp::compute {
namespace {

int64_t Int64(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (!value.is_string()) return 0;
  const std::string& text = value.get_ref<const std::string&>();
  int64_t parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  return ec == std::errc() && end == text.data() + text.size() ? parsed : 0;
}

}  // namespace

Reservation ReservationFromJson(const nlohmann::json& body) {
  Reservation reservation;
  if (!body.is_object()) return reservation;
  reservation.name = core::StringAt(body, "name");
  reservation.zone = core::LastSegment(core::StringAt(body, "zone"));
  reservation.status = core::StringAt(body, "status");
  auto specific = body.find("specificReservation");
  if (specific == body.end() || !specific->is_object()) return reservation;
  reservation.count = Int64(specific->value("count", nlohmann::json()));
  reservation.in_use = Int64(specific->value("inUseCount", nlohmann::json()));
  auto properties = specific->find("instanceProperties");
  if (properties != specific->end() && properties->is_object()) {
    reservation.machine_type = core::LastSegment(core::StringAt(*properties, "machineType"));
  }
  return reservation;
}

core::Result<Reservation> GetReservation(http::Transport& transport, const std::string& base_url,
                                         const std::string& project, const std::string& zone, const std::string& name) {
  const std::string path = "projects/" + http::PathSegment(project) + "/zones/" + http::PathSegment(zone) +
                           "/reservations/" + http::PathSegment(name);
  auto body = CallJson(transport, JsonRequest("GET", JoinUrl(base_url, path)), "compute.reservations.get");
  if (!body) return core::Fail(body.error());
  return ReservationFromJson(*body);
}

core::Result<std::vector<Reservation>> ListAllReservations(http::Transport& transport, const std::string& base_url,
                                                           const std::string& project) {
  std::vector<Reservation> all;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url, "projects/" + http::PathSegment(project) + "/aggregated/reservations");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport, JsonRequest("GET", url), "compute.reservations.aggregatedList");
    if (!body) return core::Fail(body.error());
    auto items = body->find("items");
    if (items != body->end() && items->is_object()) {
      for (const auto& [zone, scoped] : items->items()) {
        if (!scoped.is_object()) continue;
        for (const auto& item : scoped.value("reservations", nlohmann::json::array())) {
          all.push_back(ReservationFromJson(item));
        }
      }
    }
    page_token = core::StringAt(*body, "nextPageToken");
  } while (!page_token.empty());
  return all;
}

}  // namespace tputrain::gcp::compute
