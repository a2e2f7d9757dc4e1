#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// vLLM's failures as one line each, whichever shape the server's version answers in.
namespace tputrain::serving {

// `body` is the answer's parsed JSON (null when it is none) and `raw` its text; `status` the HTTP
// status, or for an error sent inside a stream (already 200) the code it carries. Reads:
//   {"error": {"message", "type", "param", "code"}}   vLLM >= 0.10.1
//   {"object": "error", "message", "type", ...}        older vLLM (the flat shape)
//   {"error": "Unauthorized"}                           --api-key refused
//   {"detail": ...}                                     FastAPI's own (an unknown route)
//   the API server's Status                             its service proxy (no Service, no endpoints)
//   anything else                                       its first 300 bytes on one line
core::Error VllmError(int status, const nlohmann::json& body, std::string_view raw);

// True when `body` is an error in one of vLLM's two shapes (as a stream's chunk may be).
bool IsVllmError(const nlohmann::json& body);

}  // namespace tputrain::serving
