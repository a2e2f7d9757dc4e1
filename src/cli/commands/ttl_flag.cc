#include "commands/ttl_flag.h"

#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {

void AddTtlFlag(CLI::App* command, ProvisionFlags& flags) {
  command->add_option("--ttl", flags.ttl,
                      "Label what is created tputrain-expires=<now + this, unix time> (e.g. 8h, at most 87600h): "
                      "'cleanup --scan --expired --delete-leaked --yes' deletes it once that time has passed");
}

core::Result<int64_t> ExpiresAt(Context& context, const std::string& ttl) {
  return workflow::ExpiresAt(context.stack().clock().WallNow(), ttl);
}

}  // namespace tputrain::cli
