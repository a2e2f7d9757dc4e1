#include "tputrain/core/json.h"

#include <string>

namespace tputrain::core {
namespace {

Error JsonError(std::string_view what, const std::string& message, std::string_view reason) {
  auto error = Error::Usage(what.empty() ? message : std::string(what) + ": " + message);
  error.reason = std::string(reason);
  return error;
}

std::string Size(size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

size_t JsonDepth(std::string_view text, size_t stop_above) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // whatever is escaped, it neither ends the string nor nests
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stop_above) return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Fail(JsonError(what, "JSON larger than " + Size(limits.max_bytes), kJsonTooLarge));
  }
  if (JsonDepth(text, limits.max_depth) > limits.max_depth) {
    return Fail(
        JsonError(what, "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels", kJsonTooDeep));
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() quotes the last bytes read: the position alone says where without repeating them.
    return Fail(JsonError(what, "not valid JSON (at byte " + std::to_string(e.byte) + ")", kJsonMalformed));
  } catch (const nlohmann::json::out_of_range&) {
    // 1e999999: a number no double holds (nlohmann's 406), thrown as another type.
    return Fail(JsonError(what, "not valid JSON (a number out of range)", kJsonMalformed));
  }
}

}  // namespace tputrain::core
