#include "commands/ttl_flag.h"

#include <chrono>

#include "tputrain/core/duration.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {

void AddTtlFlag(CLI::App* command, ProvisionFlags& flags) {
  command->add_option("--ttl", flags.ttl,
                      "Label what is created tputrain-expires=<now + this, unix time> (e.g. 8h): 'cleanup --scan "
                      "--expired --delete-leaked --yes' deletes it once that time has passed");
}

core::Result<int64_t> ExpiresAt(Context& context, const std::string& ttl) {
  if (ttl.empty()) return int64_t{0};
  auto duration = core::ParseDuration("--ttl", ttl);
  if (!duration) return core::Fail(duration.error());
  const auto at = context.stack().clock().WallNow() + *duration;
  return static_cast<int64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch() + std::chrono::milliseconds(999)).count());
}

}  // namespace tputrain::cli
