#pragma once

#include <cstdint>
#include <string>

#include "commands/provision_common.h"

namespace tputrain::cli {

// --ttl DURATION on creates of what bills by the hour: the tputrain-expires label, which
// `cleanup --scan --expired` deletes by.
void AddTtlFlag(CLI::App* command, ProvisionFlags& flags);

// workflow::ExpiresAt at the stack's wall clock: 0 when no --ttl is given.
core::Result<int64_t> ExpiresAt(Context& context, const std::string& ttl);

}  // namespace tputrain::cli
