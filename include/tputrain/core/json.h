#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/file.h"
#include "tputrain/core/result.h"

// Every JSON text tputrain reads goes through here: Google's, the Kubernetes API server's, the
// Ray dashboard's and the serving engines' answers, exec plugins' output, ledgers, the
// emulator's request bodies and state. nlohmann's parser keeps its stack on the heap, but what
// comes after recurses once per level (dump, copy, comparison, every walk over the value), so a
// text nested 70,000 deep parses fine and then overflows the stack of whoever touches it. The
// depth is bounded before the parse, by a scan that costs one pass and no allocation, and the
// size with it.
namespace tputrain::core {

struct JsonLimits {
  size_t max_bytes = 64 * kMiB;
  size_t max_depth = 256;  // arrays and objects; `[]` is 1, a scalar 0
};

// Error::reason of ParseJson's failures.
inline constexpr std::string_view kJsonMalformed = "JSON_MALFORMED";
inline constexpr std::string_view kJsonTooLarge = "JSON_TOO_LARGE";
inline constexpr std::string_view kJsonTooDeep = "JSON_TOO_DEEP";

// The value of `text`. Fails with kInvalidArgument and one line that starts with `what` (a file,
// a flag, "GET https://..."), left out when empty:
//   "WHAT: not valid JSON (at byte 17)"           (reason kJsonMalformed; invalid UTF-8 too)
//   "WHAT: JSON nested deeper than 256 levels"    (reason kJsonTooDeep)
//   "WHAT: JSON larger than 64 MiB"               (reason kJsonTooLarge)
// The message never quotes the text: a server's answer may hold a token, or terminal controls.
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what, const JsonLimits& limits = {});

// The deepest nesting of arrays and objects in `text`, counted without parsing (brackets inside
// strings do not count); the count stops as soon as it passes `stop_above`. For any prefix a JSON
// parser accepts it is at least the depth the parser builds, so a text it passes cannot be deeper.
size_t JsonDepth(std::string_view text, size_t stop_above);

}  // namespace tputrain::core
