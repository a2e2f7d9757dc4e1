#pragma once

#include <cstdint>
#include <string>

#include "commands/provision_common.h"

namespace tputrain::cli {

// --ttl DURATION on creates of what bills by the hour: the tputrain-expires label, which
// `cleanup --scan --expired` deletes by.
void AddTtlFlag(CLI::App* command, ProvisionFlags& flags);

// The unix time --ttl names (now + the duration, rounded up so nothing expires early); 0 when
// none is given. A malformed duration is a usage error naming --ttl.
core::Result<int64_t> ExpiresAt(Context& context, const std::string& ttl);

}  // namespace tputrain::cli
