#pragma once

#include <functional>

#include "tputrain/emulator/handlers.h"

namespace tputrain::emulator {

// POST /batch/compute/v1 (multipart/mixed of application/http requests).
bool IsComputeBatch(const ApiRequest& request);

// Answers each part through `handle` (the emulator's own entry point) and packs the answers
// into one multipart/mixed reply, in order, each named after its request's Content-ID.
ApiResponse HandleComputeBatch(const ApiRequest& request, const std::function<ApiResponse(const ApiRequest&)>& handle);

}  // namespace tputrain::emulator
