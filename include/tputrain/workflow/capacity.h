#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/catalog/prices.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"

// Where the chips of a TPU slice come from: exactly one of on-demand, Spot, a reservation or
// flex-start (GKE's Dynamic Workload Scheduler), as xpk asks, with gcloud's --spot and
// --reservation kept as short forms.
namespace tputrain::workflow {

// One enum for the choice, the price and the ledger's cost record: the catalog's.
using catalog::CapacityMode;
using catalog::CapacityModeName;

// The mode of a node pool as GKE describes it (or as tputrain asks for it).
CapacityMode PoolCapacityMode(bool spot, bool reserved, bool flex_start);

// The node labels TPU pods select to run on pools of `mode`: GKE's cloud.google.com/gke-spot or
// cloud.google.com/gke-flex-start "true"; nothing for on-demand or a reservation (their nodes
// carry no label of their own that GKE documents for pods to select).
std::map<std::string, std::string> PoolNodeLabels(CapacityMode mode);

// What a wait for pods on pools of `mode` says while they are pending: a flex-start pool has no
// nodes until Google's Dynamic Workload Scheduler finds the chips, which can take hours.
// `timeout_flag` names the caller's flag that bounds the wait (--ready-timeout, --timeout).
std::string PendingCapacityHint(CapacityMode mode, std::string_view timeout_flag);

// What a wait that timed out adds when its pods selected pools of `mode` (empty: nothing).
std::string NoCapacityNote(CapacityMode mode);

// The capacity flags as typed.
struct CapacityFlags {
  std::string capacity;              // --capacity
  bool spot = false;                 // --spot
  std::string reservation;           // --reservation
  std::string max_run_duration;      // --max-run-duration (flex-start)
  bool queued_provisioning = false;  // --enable-queued-provisioning: GPU-only, refused for TPUs
};

struct Capacity {
  CapacityMode mode = CapacityMode::kOnDemand;
  // As typed, once checked: "R", "projects/P/reservations/R", or that with
  // "/reservationBlocks/B[/reservationSubBlocks/S]". GKE takes it verbatim.
  std::string reservation;
  std::optional<std::chrono::seconds> max_run_duration;
};

// GKE keeps a flex-start VM at most seven days.
inline constexpr std::chrono::hours kMaxFlexStartRun{24 * 7};

// One usage line naming the flag when the choice is ambiguous (--spot with --reservation, or
// either with another --capacity), incomplete (--capacity reservation without --reservation),
// malformed (a reservation path of another shape), or impossible (queued provisioning for TPUs,
// --max-run-duration outside flex-start or beyond seven days).
core::Result<Capacity> ResolveCapacity(const CapacityFlags& flags);

// The parts of a checked reservation: `project` empty for a short name (the caller's project).
struct ReservationPath {
  std::string project;
  std::string reservation;
  std::string block;
  std::string sub_block;
};
core::Result<ReservationPath> ParseReservation(std::string_view text);

// A Cloud TPU VM's capacity flags as typed: --capacity/--spot/--reservation, and the queued
// resource's --queued, --valid-until and --valid-after.
struct TpuVmCapacityFlags {
  CapacityFlags capacity;
  // --reserved: any reservation that matches, as gcloud spells it (a TPU VM's
  // schedulingConfig.reserved; a queued resource's reservationName .../reservations/-).
  bool reserved = false;
  bool queued = false;
  std::string valid_until;  // "6h"
  std::string valid_after;
};

// How long a queued resource on a reservation waits (after --valid-after) when --valid-until does
// not say: TPU VMs on a reservation that holds them take minutes to provision.
inline constexpr std::chrono::seconds kReservationQueueWait{3600};

struct TpuVmCapacity {
  bool spot = false;
  bool reserved = false;  // any matching reservation (--reserved, or a named one)
  // Through a queued resource (--queued, or a reservation, which only queued resources name in
  // the TPU API's v2): what it waits for and may draw on.
  bool queued = false;
  gcp::tpu::Queueing queueing;
};

// One usage line naming the flag for a choice Cloud TPU VMs cannot take here (flex-start, which
// only the TPU API's alpha has; a reservation's blocks), --valid-until or --valid-after without
// a queue, or a duration of the wrong shape. A reservation R becomes
// projects/PROJECT/locations/ZONE/reservations/R, as gcloud's alpha --reservation expands it, and
// its queue ends after kReservationQueueWait unless --valid-until says when; --reserved (any
// matching reservation) is the node's schedulingConfig.reserved, or with --queued the queued
// resource's projects/PROJECT/locations/ZONE/reservations/-, as gcloud's GA --reserved.
core::Result<TpuVmCapacity> ResolveTpuVmCapacity(const TpuVmCapacityFlags& flags, const std::string& project,
                                                 const std::string& zone);

}  // namespace tputrain::workflow
