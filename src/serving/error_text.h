#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/json.h"

// How the engines put a server's words into one line of an error message.
namespace tputrain::serving {

// `text` on one line (newlines and tabs as spaces, runs of spaces squeezed), cut at 300 bytes.
std::string OneLine(std::string text);

// A server's JSON answer, each byte that is not UTF-8 read as U+FFFD first: a model's text with a
// stray byte (a token cut inside a character) is still its text, not "no answer". Null when the
// text is not JSON, or beyond `limits`.
nlohmann::json AnswerJson(std::string_view body, const core::JsonLimits& limits = {});

// FastAPI's validation detail, [{"loc": ["body", "prompt"], "msg": "..."}], as "body.prompt: ...".
std::string ValidationDetail(const nlohmann::json& detail);

// The API server's own answer (a Status: no such Service, no endpoints behind it yet) as one
// line, or "" when `body` is no Status.
std::string ServiceProxyStatus(const nlohmann::json& body);

}  // namespace tputrain::serving
