#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::cli {

// --capacity and its short forms --spot and --reservation; `flex_start` adds what only GKE
// pools take (--max-run-duration, and --enable-queued-provisioning to refuse it in one line).
void AddCapacityFlags(CLI::App* command, workflow::CapacityFlags& flags, bool flex_start);

// --zones, --retry-until-up and --retry-gap: where to fail over to on a stockout.
void AddFailoverFlags(CLI::App* command, workflow::FailoverFlags& flags, const char* zones_help);

}  // namespace tputrain::cli
