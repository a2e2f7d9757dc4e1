#pragma once

#include <nlohmann/json.hpp>

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// What `submit --dry-run` prints: a job's description as JSON, or, on a cluster, each apply
// (method, URL, content type, redacted body), the wait, and the job's requests through the proxy.
void PrintSubmitPlan(Context& context, const nlohmann::json& plan);

}  // namespace tputrain::cli
