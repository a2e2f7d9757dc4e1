#pragma once

#include <string>

#include <nlohmann/json.hpp>

// How the engines put a server's words into one line of an error message.
namespace tputrain::serving {

// `text` on one line (newlines and tabs as spaces, runs of spaces squeezed), cut at 300 bytes.
std::string OneLine(std::string text);

// FastAPI's validation detail, [{"loc": ["body", "prompt"], "msg": "..."}], as "body.prompt: ...".
std::string ValidationDetail(const nlohmann::json& detail);

// The API server's own answer (a Status: no such Service, no endpoints behind it yet) as one
// line, or "" when `body` is no Status.
std::string ServiceProxyStatus(const nlohmann::json& body);

}  // namespace tputrain::serving
