#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp {

// A JSON request as the API clients build it: the exact bytes --dry-run prints and Send sends.
// Bodies are compact JSON with sorted keys, as gcloud's apitools writes them.
http::Request JsonRequest(std::string method, std::string url, const nlohmann::json* body = nullptr);

// Sends `request`; a 2xx body is parsed (an empty body is `{}`), any other status becomes an
// Error through gcp::ErrorFromHttp, tagged with `where` (the API method id).
core::Result<nlohmann::json> CallJson(http::Transport& transport, const http::Request& request, std::string_view where);

// `base` (ending in '/' or not) joined with `path` (no leading '/').
std::string JoinUrl(const std::string& base, std::string_view path);

}  // namespace tputrain::gcp
