#pragma once

#include <vector>

#include "tputrain/cli/context.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::cli {

// What --dry-run prints: each request a command would send (method, URL, redacted body), as a
// list or, with --format json|yaml, as {"dry_run": true, "requests": [...]}.
void PrintPlannedRequests(Context& context, const std::vector<http::Request>& planned);

}  // namespace tputrain::cli
