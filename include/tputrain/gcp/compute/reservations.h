#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// Compute Engine zonal reservations (compute/v1 reservations.get and aggregatedList), read to
// check that a reservation can hold a slice before anything is created on it.
namespace tputrain::gcp::compute {

struct Reservation {
  std::string name;
  std::string zone;          // "us-east5-a", from the reservation's zone link
  std::string machine_type;  // specificReservation.instanceProperties.machineType
  int64_t count = 0;         // specificReservation.count: VMs (hosts) reserved
  int64_t in_use = 0;        // specificReservation.inUseCount
  std::string status;
  int64_t Free() const { return count > in_use ? count - in_use : 0; }
};

// Compute's int64 fields come as decimal strings; a reservation of another shape reads as empty.
Reservation ReservationFromJson(const nlohmann::json& body);

// `base_url` is Endpoints::compute (".../compute/v1/").
core::Result<Reservation> GetReservation(http::Transport& transport, const std::string& base_url,
                                         const std::string& project, const std::string& zone, const std::string& name);
// Every zone's reservations of `project`.
core::Result<std::vector<Reservation>> ListAllReservations(http::Transport& transport, const std::string& base_url,
                                                           const std::string& project);

}  // namespace tputrain::gcp::compute
