#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/handlers.h"

// What the Cloud TPU handlers (tpu.cc, tpu_node_updates.cc) share: names, errors, operations.
namespace tputrain::emulator {

// "projects/P/locations/L" from the route's first two captures.
std::string TpuParent(const Call& call);
ApiResponse TpuNotFound(const std::string& name);
// Stores a done:false operation on `target` that finishes after the configured latency
// (operations.h), honouring a stockout/stuck fault, and returns it.
nlohmann::json StartTpuOperation(Call& call, const std::string& verb, const std::string& target,
                                 const nlohmann::json& response);

}  // namespace tputrain::emulator
