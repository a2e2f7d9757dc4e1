#pragma once

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/file.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/api.h"

// What the emulator accepts of one request, as Google's front ends bound it. Whatever it holds,
// logs or answers comes from bodies that passed here, so no walk over them (dump, the schema
// check, the request log) goes deeper than kMaxRequestJsonDepth, and no body costs more memory
// than its path's bound.
namespace tputrain::emulator {

// Objects live in the world document (and its state file): a bound keeps one upload from
// exhausting memory. Real Cloud Storage takes up to 5 TiB; what tputrain uploads (build contexts,
// scripts, test checkpoints) is a few MiB. At 256 MiB, uploads just under the bound took the
// emulator to 600 MB.
inline constexpr size_t kMaxObjectBytes = 32 * core::kMiB;
// The JSON APIs' bodies (a Cluster, a Node, a Build): Google refuses payloads over 10 MiB.
inline constexpr size_t kMaxJsonRequestBytes = 10 * core::kMiB;
// Google parses request JSON into protocol buffers, whose JSON parser stops at 100 levels.
inline constexpr size_t kMaxRequestJsonDepth = 100;
// 10 MiB of "0," is 5 million values, 400 MB once parsed and copied: no request of the APIs the
// emulator serves holds more than a few thousand.
inline constexpr size_t kMaxRequestJsonValues = 1'000'000;

// The longest decoded path the emulator routes. httplib refuses a longer request line itself
// (414), but a batch part's request line reaches the emulator as it is, and std::regex recurses
// once per character: a 32 KiB path overflowed the stack of the thread that matched it.
inline constexpr size_t kMaxPathBytes = 8 * 1024;

// libstdc++'s std::regex recurses once per character a repetition (+, *) takes, so a body value of
// some 30,000 characters matched against such a pattern overflowed the stack (a bucket's
// location, a cluster's version, a role, a source range). A value longer than this never matches
// (no name, version, role, address or image tag of these APIs comes near it) and is not matched.
inline constexpr size_t kMaxMatchedBytes = 1024;
bool MatchesBounded(const std::string& text, const std::regex& pattern, std::smatch* match = nullptr);

// 414, as Google's front end answers a URL too long for it: a short HTML page.
ApiResponse UriTooLong();

// The largest body accepted on `path`: an object and its multipart framing on the upload paths,
// kMaxJsonRequestBytes everywhere else.
size_t MaxRequestBytes(std::string_view path);

// 413, as Google's front end answers a request too large for it: a short HTML page, not JSON.
ApiResponse RequestTooLarge();

// The value of a JSON request body, or Google's words for why not ("Invalid JSON payload
// received. ..."): malformed, larger than kMaxJsonRequestBytes, deeper than kMaxRequestJsonDepth,
// or of more than kMaxRequestJsonValues values.
core::Result<nlohmann::json> ParseRequestJson(std::string_view text);

}  // namespace tputrain::emulator
