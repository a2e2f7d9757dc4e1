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
  // Values (scalars, arrays, objects; a key is not one). A parsed value costs 16 bytes and more
  // where its text may cost 2 ("0,"): 64 MiB of "0," would be 33 million values and a gigabyte.
  // Answers of the size tputrain reads hold far fewer (a CRD, a list of pods: tens of thousands).
  size_t max_values = 4'000'000;
};

// Error::reason of ParseJson's failures.
inline constexpr std::string_view kJsonMalformed = "JSON_MALFORMED";
inline constexpr std::string_view kJsonTooLarge = "JSON_TOO_LARGE";
inline constexpr std::string_view kJsonTooDeep = "JSON_TOO_DEEP";
inline constexpr std::string_view kJsonTooMany = "JSON_TOO_MANY_VALUES";

// The value of `text`. Fails with kInvalidArgument and one line that starts with `what` (a file,
// a flag, "GET https://..."), left out when empty:
//   "WHAT: not valid JSON (at byte 17)"           (reason kJsonMalformed; invalid UTF-8 too)
//   "WHAT: JSON nested deeper than 256 levels"    (reason kJsonTooDeep)
//   "WHAT: JSON larger than 64 MiB"               (reason kJsonTooLarge)
//   "WHAT: JSON of more than 1000000 values"      (reason kJsonTooMany)
// The message never quotes the text: a server's answer may hold a token, or terminal controls.
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what, const JsonLimits& limits = {});

// The deepest nesting of arrays and objects in `text`, and how many values it holds at most (one,
// and one more per comma and per opening bracket), counted without parsing: brackets and commas
// inside strings do not count. The scan stops as soon as either passes its limit in `limits`. For
// any prefix a JSON parser accepts, both are at least what the parser builds, so a text within
// them cannot build more.
struct JsonShape {
  size_t depth = 0;
  size_t values = 0;
};
JsonShape ScanJson(std::string_view text, const JsonLimits& limits);

}  // namespace tputrain::core
