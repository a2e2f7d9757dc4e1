#pragma once

// Why a create found no chips, read from the answer's structure first (GKE's pool conditions,
// an operation's google.rpc code, QuotaFailure details) and its text only as a fallback, and the
// one line that says where, what and what to try next (private to the workflow module).
#include <string>
#include <string_view>

#include "tputrain/core/error.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/tpu/types.h"

namespace tputrain::workflow::internal {

enum class CapacityProblem { kNone, kStockout, kQuota, kReservationShort, kRateLimit };

std::string_view CapacityProblemName(CapacityProblem problem);  // "stockout", "quota", ...

CapacityProblem ClassifyCapacity(const core::Error& error);

// Where a create was sent: the zone (or region), the machine or accelerator type, and the
// capacity mode ("on-demand", "spot", "reservation R", "flex-start").
struct CapacityContext {
  std::string what;  // "node pool tpu", "TPU VM t1"
  std::string location;
  std::string machine;
  std::string mode;
};

// One line naming the place, the type and the mode, why, and the next step: another zone, another
// capacity mode, a reservation, or the quota to raise (a quota is regional: another zone of the
// region does not help). Errors that are not about capacity come back unchanged.
core::Error ExplainCapacity(core::Error error, const CapacityContext& context);

// The capacity mode a request asks for, as ExplainCapacity names it.
std::string ModeOf(const gcp::container::NodePoolSpec& spec);
std::string ModeOf(const gcp::tpu::NodeSpec& spec);

// The region of a zone ("us-east5-a" → "us-east5"); a region is its own.
std::string RegionOf(std::string_view location);

}  // namespace tputrain::workflow::internal
