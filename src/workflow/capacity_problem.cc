#include "capacity_problem.h"

#include <algorithm>
#include <cctype>

#include "tputrain/gcp/error_from_http.h"

namespace tputrain::workflow::internal {
namespace {

bool Contains(std::string_view text, std::string_view part) {
  auto lower = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

// google.rpc ErrorInfo reasons and GKE StatusCondition codes that say it outright.
CapacityProblem FromReason(std::string_view reason) {
  if (reason == "GCE_STOCKOUT" || reason == "ZONE_RESOURCE_POOL_EXHAUSTED" ||
      reason == "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS" || reason == "resource_availability") {
    return CapacityProblem::kStockout;
  }
  if (reason == "GCE_QUOTA_EXCEEDED" || reason == gcp::kReasonQuotaExceeded || reason == "quotaExceeded") {
    return CapacityProblem::kQuota;
  }
  if (reason == gcp::kReasonRateLimited || reason == "RATE_LIMIT_EXCEEDED" || reason == "rateLimitExceeded") {
    return CapacityProblem::kRateLimit;
  }
  return CapacityProblem::kNone;
}

// The texts each API words its answers with (capacity-cost notes §A.4), for answers with no
// structure that says which.
CapacityProblem FromText(std::string_view message) {
  if (Contains(message, "insufficient reserved capacity") ||
      (Contains(message, "reservation") && Contains(message, "not have enough resources")) ||
      Contains(message, "has no available capacity")) {
    return CapacityProblem::kReservationShort;
  }
  if (Contains(message, "no more capacity in the zone") || Contains(message, "not enough resources available") ||
      Contains(message, "does not have enough resources") || Contains(message, "stockout")) {
    return CapacityProblem::kStockout;
  }
  if (Contains(message, "quota")) return CapacityProblem::kQuota;
  if (Contains(message, " per minute") || Contains(message, "rate limit")) return CapacityProblem::kRateLimit;
  return CapacityProblem::kNone;
}

}  // namespace

std::string_view CapacityProblemName(CapacityProblem problem) {
  switch (problem) {
    case CapacityProblem::kNone:
      return "none";
    case CapacityProblem::kStockout:
      return "stockout";
    case CapacityProblem::kQuota:
      return "quota";
    case CapacityProblem::kReservationShort:
      return "reservation-short";
    case CapacityProblem::kRateLimit:
      return "rate-limit";
  }
  return "none";
}

CapacityProblem ClassifyCapacity(const core::Error& error) {
  if (error.kind != core::ErrorKind::kResourceExhausted && error.kind != core::ErrorKind::kPermissionDenied &&
      error.kind != core::ErrorKind::kNotFound && error.kind != core::ErrorKind::kFailedPrecondition) {
    return CapacityProblem::kNone;
  }
  // A reservation's shortfall is named in the text only (GKE answers 429, Cloud TPU code 8 or 9).
  if (FromText(error.message) == CapacityProblem::kReservationShort) return CapacityProblem::kReservationShort;
  if (auto problem = FromReason(error.reason); problem != CapacityProblem::kNone) return problem;
  const auto text = FromText(error.message);
  if (error.kind != core::ErrorKind::kResourceExhausted) {
    // GKE's quota pre-check is a 403 ("Insufficient regional quota"); other 403s and 404s are not
    // about capacity.
    return text == CapacityProblem::kQuota ? text : CapacityProblem::kNone;
  }
  if (text != CapacityProblem::kNone) return text;
  // RESOURCE_EXHAUSTED with nothing more: an operation's code 8 is a stockout (quota is refused
  // synchronously, before there is an operation); a synchronous one is a quota.
  return error.http_status == 0 ? CapacityProblem::kStockout : CapacityProblem::kQuota;
}

std::string ModeOf(const gcp::container::NodePoolSpec& spec) {
  if (spec.flex_start) return "flex-start";
  if (spec.spot) return "spot";
  if (!spec.reservation.empty()) return "reservation " + spec.reservation;
  return "on-demand";
}

std::string ModeOf(const gcp::tpu::NodeSpec& spec) {
  if (spec.spot) return "spot";
  if (spec.reserved) return "reservation";
  return "on-demand";
}

std::string RegionOf(std::string_view location) {
  // Zones are REGION-LETTER ("us-east5-a", "us-central1-ai1a"): the region is before the last '-'
  // when what precedes it ends in a digit.
  auto dash = location.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::string(location);
  const char before = location[dash - 1];
  if (std::isdigit(static_cast<unsigned char>(before)) == 0) return std::string(location);
  return std::string(location.substr(0, dash));
}

core::Error ExplainCapacity(core::Error error, const CapacityContext& context) {
  const CapacityProblem problem = ClassifyCapacity(error);
  const std::string where =
      context.what + " in " + context.location + " (" + context.machine + ", " + context.mode + ")";
  std::string why;
  std::string next;
  switch (problem) {
    case CapacityProblem::kNone:
      return error;
    case CapacityProblem::kStockout:
      why = "out of capacity (stockout)";
      next =
          "try other zones (--zones Z1,Z2,...), --capacity spot or flex-start, or a reservation; "
          "--retry-until-up keeps trying";
      break;
    case CapacityProblem::kQuota:
      why = "quota exceeded";
      next = "quota is per region, so another zone of " + RegionOf(context.location) +
             " will not help: raise the quota, or try another region";
      break;
    case CapacityProblem::kReservationShort:
      why = "the reservation has too few free hosts";
      next = "free hosts in the reservation, use another, or try --capacity on-demand|spot|flex-start";
      break;
    case CapacityProblem::kRateLimit:
      why = "create rate limit";
      next = "wait a minute and run the same command again";
      break;
  }
  // The server's words kept, on the same line.
  std::string detail = error.message;
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  error.message = where + ": " + why + ": " + detail + "; next: " + next;
  return error;
}

}  // namespace tputrain::workflow::internal
