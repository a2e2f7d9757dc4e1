#include "tputrain/workflow/capacity.h"

#include <tuple>
#include <vector>

#include "tputrain/core/duration.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow {
namespace {

// Compute resource names (RFC 1035 labels, at most 63 characters).
bool IsResourceName(std::string_view name) {
  return static_cast<bool>(gcp::CheckResourceId("--reservation", name, 63));
}

bool IsProjectId(std::string_view id) { return static_cast<bool>(gcp::CheckProjectId("--reservation", id)); }

std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

core::Error Conflict(std::string_view flag, std::string_view other) {
  return core::Error::Usage(std::string(flag) + ": conflicts with " + std::string(other) +
                            "; give one capacity choice (--capacity on-demand|spot|reservation|flex-start)");
}

}  // namespace

CapacityMode PoolCapacityMode(bool spot, bool reserved, bool flex_start) {
  if (spot) return CapacityMode::kSpot;
  if (reserved) return CapacityMode::kReservation;
  return flex_start ? CapacityMode::kFlexStart : CapacityMode::kOnDemand;
}

std::map<std::string, std::string> PoolNodeLabels(CapacityMode mode) {
  switch (mode) {
    case CapacityMode::kSpot:
      return {{"cloud.google.com/gke-spot", "true"}};
    case CapacityMode::kFlexStart:
      return {{"cloud.google.com/gke-flex-start", "true"}};
    case CapacityMode::kOnDemand:
    case CapacityMode::kReservation:
      break;
  }
  return {};
}

std::string PendingCapacityHint(CapacityMode mode, std::string_view timeout_flag) {
  if (mode != CapacityMode::kFlexStart) return "";
  return "waiting for flex-start capacity: the pool grows when the Dynamic Workload Scheduler finds the chips "
         "(minutes to hours; " +
         std::string(timeout_flag) + " bounds the wait)";
}

std::string NoCapacityNote(CapacityMode mode) {
  if (mode != CapacityMode::kFlexStart) return "";
  return "the TPU pods select flex-start pools, which had no capacity for them in that time";
}

core::Result<ReservationPath> ParseReservation(std::string_view text) {
  const std::string expected =
      "--reservation: expected a reservation name, projects/PROJECT/reservations/NAME, or that with "
      "/reservationBlocks/BLOCK[/reservationSubBlocks/SUB_BLOCK], got '" +
      std::string(text) + "'";
  if (IsResourceName(text)) return ReservationPath{"", std::string(text), "", ""};
  auto parts = Split(text);
  if (parts.size() < 4 || parts[0] != "projects" || !IsProjectId(parts[1]) || parts[2] != "reservations" ||
      !IsResourceName(parts[3])) {
    return core::Fail(core::Error::Usage(expected));
  }
  ReservationPath path{std::string(parts[1]), std::string(parts[3]), "", ""};
  if (parts.size() == 4) return path;
  if (parts.size() < 6 || parts[4] != "reservationBlocks" || !IsResourceName(parts[5])) {
    return core::Fail(core::Error::Usage(expected));
  }
  path.block = std::string(parts[5]);
  if (parts.size() == 6) return path;
  if (parts.size() != 8 || parts[6] != "reservationSubBlocks" || !IsResourceName(parts[7])) {
    return core::Fail(core::Error::Usage(expected));
  }
  path.sub_block = std::string(parts[7]);
  return path;
}

core::Result<Capacity> ResolveCapacity(const CapacityFlags& flags) {
  Capacity capacity;
  if (!flags.capacity.empty()) {
    auto mode = catalog::ParseCapacityMode(flags.capacity);
    if (!mode) {
      return core::Fail(core::Error::Usage("--capacity: expected on-demand, spot, reservation or flex-start, got '" +
                                           flags.capacity + "'"));
    }
    capacity.mode = *mode;
  }
  const bool chosen = !flags.capacity.empty();
  if (flags.spot && !flags.reservation.empty()) return core::Fail(Conflict("--spot", "--reservation"));
  if (flags.spot) {
    if (chosen && capacity.mode != CapacityMode::kSpot)
      return core::Fail(Conflict("--spot", "--capacity " + flags.capacity));
    capacity.mode = CapacityMode::kSpot;
  }
  if (!flags.reservation.empty()) {
    if (chosen && capacity.mode != CapacityMode::kReservation) {
      return core::Fail(Conflict("--reservation", "--capacity " + flags.capacity));
    }
    auto path = ParseReservation(flags.reservation);
    if (!path) return core::Fail(path.error());
    capacity.mode = CapacityMode::kReservation;
    capacity.reservation = flags.reservation;
  }
  if (capacity.mode == CapacityMode::kReservation && capacity.reservation.empty()) {
    return core::Fail(core::Error::Usage("--capacity reservation: name the reservation with --reservation NAME"));
  }
  if (flags.queued_provisioning) {
    // GKE answers 400 "Flex start node pools don't support TPUs with queued provisioning".
    return core::Fail(core::Error::Usage(
        "--enable-queued-provisioning: GKE queues provisioning for GPUs only; for TPUs use --capacity flex-start "
        "(a pool of 0 nodes that grows when a workload asks)"));
  }
  if (!flags.max_run_duration.empty()) {
    if (capacity.mode != CapacityMode::kFlexStart) {
      return core::Fail(core::Error::Usage("--max-run-duration: only with --capacity flex-start"));
    }
    auto duration = core::ParseDuration("--max-run-duration", flags.max_run_duration);
    if (!duration) return core::Fail(duration.error());
    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*duration);
    if (seconds < std::chrono::seconds(1) || seconds > kMaxFlexStartRun) {
      return core::Fail(core::Error::Usage("--max-run-duration: expected from 1s to 7 days (168h), got '" +
                                           flags.max_run_duration + "'"));
    }
    capacity.max_run_duration = seconds;
  }
  return capacity;
}

namespace {

core::Result<std::chrono::seconds> Seconds(std::string_view flag, const std::string& text) {
  auto duration = core::ParseDuration(flag, text);
  if (!duration) return core::Fail(duration.error());
  return std::chrono::duration_cast<std::chrono::seconds>(*duration);
}

// google.protobuf.Duration's JSON form.
std::string ProtobufSeconds(std::chrono::seconds seconds) { return std::to_string(seconds.count()) + "s"; }

}  // namespace

core::Result<TpuVmCapacity> ResolveTpuVmCapacity(const TpuVmCapacityFlags& flags, const std::string& project,
                                                 const std::string& zone) {
  if (flags.reserved) {
    if (flags.capacity.spot) return core::Fail(Conflict("--reserved", "--spot"));
    if (!flags.capacity.reservation.empty()) {
      return core::Fail(core::Error::Usage(
          "--reserved: conflicts with --reservation; --reserved takes any matching reservation, --reservation one"));
    }
    if (!flags.capacity.capacity.empty() && flags.capacity.capacity != "reservation") {
      return core::Fail(Conflict("--reserved", "--capacity " + flags.capacity.capacity));
    }
  }
  CapacityFlags choice = flags.capacity;
  if (flags.reserved) choice.capacity.clear();  // --capacity reservation --reserved: any reservation
  auto capacity = ResolveCapacity(choice);
  if (!capacity) return core::Fail(capacity.error());
  TpuVmCapacity resolved;
  resolved.queued = flags.queued;
  if (flags.reserved) {
    resolved.reserved = true;
    // gcloud compute tpus queued-resources create --reserved: the zone's "-" reservation.
    if (flags.queued)
      resolved.queueing.reservation_name = "projects/" + project + "/locations/" + zone + "/reservations/-";
  }
  switch (capacity->mode) {
    case CapacityMode::kOnDemand:
      break;
    case CapacityMode::kSpot:
      resolved.spot = true;
      break;
    case CapacityMode::kFlexStart:
      return core::Fail(core::Error::Usage(
          "--capacity flex-start: Cloud TPU VMs take it only through the TPU API's alpha; use a GKE pool "
          "(nodepool create --capacity flex-start)"));
    case CapacityMode::kReservation: {
      auto path = ParseReservation(capacity->reservation);
      if (!path) return core::Fail(path.error());
      if (!path->block.empty()) {
        return core::Fail(core::Error::Usage("--reservation: Cloud TPU VMs take a reservation, not its blocks"));
      }
      resolved.queued = true;
      resolved.reserved = true;
      resolved.queueing.reservation_name = "projects/" + (path->project.empty() ? project : path->project) +
                                           "/locations/" + zone + "/reservations/" + path->reservation;
      break;
    }
  }
  std::chrono::seconds until{0};
  std::chrono::seconds after{0};
  for (const auto& [text, flag, field, parsed] :
       {std::tuple{&flags.valid_until, "--valid-until", &resolved.queueing.valid_until_duration, &until},
        std::tuple{&flags.valid_after, "--valid-after", &resolved.queueing.valid_after_duration, &after}}) {
    if (text->empty()) continue;
    if (!resolved.queued) return core::Fail(core::Error::Usage(std::string(flag) + ": only with --queued"));
    auto seconds = Seconds(flag, *text);
    if (!seconds) return core::Fail(seconds.error());
    *field = ProtobufSeconds(*seconds);
    *parsed = *seconds;
  }
  // A window that ends before it opens would queue a request that can never be granted.
  if (!flags.valid_until.empty() && !flags.valid_after.empty() && until <= after) {
    return core::Fail(core::Error::Usage("--valid-until: expected a time after --valid-after (" + flags.valid_after +
                                         "), got '" + flags.valid_until + "': the window would be empty"));
  }
  if (capacity->mode == CapacityMode::kReservation && flags.valid_until.empty()) {
    // The reservation was checked to hold the slice: a request still waiting long after is
    // waiting for what will not come. Its end fails it (FAILED), which ends the wait too.
    resolved.queueing.valid_until_duration = ProtobufSeconds(after + kReservationQueueWait);
  }
  return resolved;
}

}  // namespace tputrain::workflow
