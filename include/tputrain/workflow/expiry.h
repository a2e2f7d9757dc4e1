#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/workflow/provision.h"

// --ttl: the tputrain-expires label (workflow::kExpiresLabel) that `cleanup --scan --expired`
// deletes by.
namespace tputrain::workflow {

// The labels tputrain sets itself, which --labels may not set (a tputrain-expires given there
// would override --ttl, or make a resource expire at once).
inline constexpr std::string_view kReservedLabels[] = {kRunLabel, kExpiresLabel};

// The longest --ttl: ten years. Longer is a typo (and past ~292 years `now + ttl` no longer fits
// a clock, and would wrap into the past: the next expired sweep would delete the resource).
inline constexpr std::chrono::hours kMaxTtl{24 * 365 * 10};

// The tputrain-expires label's value for --ttl `ttl` given at `now`: unix seconds, rounded up so
// nothing expires early; 0 when `ttl` is empty. A malformed duration, or one past kMaxTtl, is a
// usage error naming --ttl.
core::Result<int64_t> ExpiresAt(std::chrono::system_clock::time_point now, const std::string& ttl);

}  // namespace tputrain::workflow
