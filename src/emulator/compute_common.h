#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/handlers.h"

// What the Compute Engine handlers (firewalls, reservations) share: links, errors and operations.
// Compute keeps the legacy error shape and its own Operation (status PENDING/RUNNING/DONE,
// targetLink, selfLink), global or zonal.
namespace tputrain::emulator {

// Links are built on the host the request came to, so that gcloud, pointed here by
// CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE, parses them as its own endpoint's.
std::string ComputeApiBase(const Call& call);
ApiResponse ComputeNotFound(const std::string& path);

// Stores a RUNNING operation of `type` on `target_link` in `scope` ("projects/P/global/",
// "projects/P/zones/Z/" or "projects/P/regions/R/"), done after the configured latency (operations.h), and returns it.
nlohmann::json& StartComputeOperation(Call& call, const std::string& scope, const std::string& type,
                                      const std::string& target_link, const std::string& id);

// operations.get (and wait, which answers at once with the operation as it stands) in `scope`.
ApiResponse GetComputeOperation(Call& call, const std::string& scope, const std::string& name);

}  // namespace tputrain::emulator
