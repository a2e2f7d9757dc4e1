#include "tputrain/emulator/request_limits.h"

#include <string>

#include "tputrain/core/json.h"

namespace tputrain::emulator {

size_t MaxRequestBytes(std::string_view path) {
  if (path.starts_with("/upload/") || path.starts_with("/resumable/upload/")) return kMaxObjectBytes + core::kMiB;
  return kMaxJsonRequestBytes;
}

ApiResponse RequestTooLarge() {
  ApiResponse response;
  response.status = 413;
  response.content_type = "text/html; charset=UTF-8";
  response.body =
      "<!DOCTYPE html>\n<html lang=en><title>Error 413 (Request Entity Too Large)</title>\n"
      "<p><b>413.</b> That's an error.\n<p>Your client issued a request that was too large.\n";
  return response;
}

bool MatchesBounded(const std::string& text, const std::regex& pattern, std::smatch* match) {
  if (text.size() > kMaxMatchedBytes) return false;
  return match != nullptr ? std::regex_match(text, *match, pattern) : std::regex_match(text, pattern);
}

ApiResponse UriTooLong() {
  ApiResponse response;
  response.status = 414;
  response.content_type = "text/html; charset=UTF-8";
  response.body =
      "<!DOCTYPE html>\n<html lang=en><title>Error 414 (Request-URI Too Large)</title>\n"
      "<p><b>414.</b> That's an error.\n<p>The requested URL is too large to process.\n";
  return response;
}

core::Result<nlohmann::json> ParseRequestJson(std::string_view text) {
  auto parsed = core::ParseJson(
      text, "",
      {.max_bytes = kMaxJsonRequestBytes, .max_depth = kMaxRequestJsonDepth, .max_values = kMaxRequestJsonValues});
  if (parsed) return parsed;
  std::string why = "The request body is not valid JSON.";
  if (parsed.error().reason == core::kJsonTooDeep) {
    why = "The request body nests deeper than " + std::to_string(kMaxRequestJsonDepth) + " levels.";
  } else if (parsed.error().reason == core::kJsonTooMany) {
    why = "The request body holds more than " + std::to_string(kMaxRequestJsonValues) + " values.";
  } else if (parsed.error().reason == core::kJsonTooLarge) {
    why = "The request body is larger than " + std::to_string(kMaxJsonRequestBytes / core::kMiB) + " MiB.";
  }
  return core::Fail(core::Error::Usage("Invalid JSON payload received. " + why));
}

}  // namespace tputrain::emulator
