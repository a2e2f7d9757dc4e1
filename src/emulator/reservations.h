#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// Compute reservations as the capacity they hold: a reservation (world["reservations"], keyed
// "projects/P/zones/Z/reservations/R") has `count` VMs of one machine type; what uses them is read
// from the resources that name it, never counted apart: GKE pools with a SPECIFIC_RESERVATION
// affinity (values[0] "R" or "projects/P/reservations/R[/reservationBlocks/...]", in the pool's
// zones) and TPU nodes or queued resources with a reservationName ("projects/P/locations/Z/
// reservations/R"). A TPU VM host or a GKE node is one VM.
namespace tputrain::emulator {

struct ReservedDemand {
  std::string key;  // "projects/P/zones/Z/reservations/R"
  std::string machine_type;
  int64_t vms = 0;
};

// What a pool of `cluster` (the cluster's key gives the project), a TPU node, or a queued
// resource asks of a named reservation; nothing when it names none.
std::vector<ReservedDemand> NodePoolReservedDemand(const std::string& cluster_key, const nlohmann::json& cluster,
                                                   const nlohmann::json& pool);
std::optional<ReservedDemand> TpuNodeReservedDemand(const nlohmann::json& node);
std::vector<ReservedDemand> QueuedResourceReservedDemand(const nlohmann::json& resource);

// The reservation a consumer of "any matching reservation" lands on (a TPU node with
// schedulingConfig.reserved and no name, a queued resource's ".../reservations/-"): one of `project`
// in `zone`, open to any consumer (not specificReservationRequired), of `machine_type`, with `vms`
// free; Cloud TPU's name for it ("projects/P/locations/Z/reservations/R"), or nullopt.
std::optional<std::string> AnyReservation(const nlohmann::json& world, const std::string& project,
                                          const std::string& zone, const std::string& machine_type, int64_t vms);
// The VMs a queued resource's node specs ask for, whatever they draw on.
int64_t QueuedResourceVms(const nlohmann::json& resource);

// VMs of the reservation in use now (pools other than ERROR ones, TPU nodes other than preempted
// ones, queued resources PROVISIONING).
int64_t ReservationInUse(const nlohmann::json& world, const std::string& key);

// Why `demands` do not fit their reservations (in addition to what is in use, or, with
// `counted`, including themselves): the reservation is missing, of another machine type, or
// short. Nothing when they fit.
enum class ReservationProblem { kMissing, kOtherMachine, kShort };
struct ReservationShortfall {
  ReservationProblem problem = ReservationProblem::kShort;
  ReservedDemand demand;
  int64_t short_by = 0;
};
std::optional<ReservationShortfall> ReservationShort(const nlohmann::json& world,
                                                     const std::vector<ReservedDemand>& demands, bool counted);

}  // namespace tputrain::emulator
