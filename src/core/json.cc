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

JsonShape ScanJson(std::string_view text, const JsonLimits& limits) {
  JsonShape shape;
  shape.values = text.find_first_not_of(" \t\r\n") == std::string_view::npos ? 0 : 1;
  size_t depth = 0;
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
      ++shape.values;  // the first member, if any
      if (++depth > shape.depth) shape.depth = depth;
    } else if (c == ',') {
      ++shape.values;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    if (shape.depth > limits.max_depth || shape.values > limits.max_values) break;
  }
  return shape;
}

Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Fail(JsonError(what, "JSON larger than " + Size(limits.max_bytes), kJsonTooLarge));
  }
  const JsonShape shape = ScanJson(text, limits);
  if (shape.depth > limits.max_depth) {
    return Fail(
        JsonError(what, "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels", kJsonTooDeep));
  }
  if (shape.values > limits.max_values) {
    return Fail(JsonError(what, "JSON of more than " + std::to_string(limits.max_values) + " values", kJsonTooMany));
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
