#include "tputrain/workflow/expiry.h"

#include "tputrain/core/duration.h"

namespace tputrain::workflow {

core::Result<int64_t> ExpiresAt(std::chrono::system_clock::time_point now, const std::string& ttl) {
  if (ttl.empty()) return int64_t{0};
  auto duration = core::ParseDuration("--ttl", ttl);
  if (!duration) return core::Fail(duration.error());
  if (*duration > kMaxTtl) {
    return core::Fail(core::Error::Usage("--ttl: expected at most " + core::FormatDuration(kMaxTtl) +
                                         " (ten years), got '" + ttl + "'"));
  }
  // In milliseconds, which hold the sum for millions of years (the clock's nanoseconds would not).
  const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) + *duration;
  return static_cast<int64_t>(std::chrono::ceil<std::chrono::seconds>(at).count());
}

}  // namespace tputrain::workflow
