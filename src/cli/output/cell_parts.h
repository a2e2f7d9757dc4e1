#pragma once

// The pieces resource cells are cut from: ledger keys, API paths and ledger details.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::cli::cell_parts {

inline std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

inline std::string Detail(const nlohmann::json& details, const char* key) {
  if (!details.is_object()) return "";
  const auto found = details.find(key);
  return found != details.end() && found->is_string() ? found->get<std::string>() : "";
}

inline bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The segment after `collection` in an API resource path ("" when there is none).
inline std::string SegmentAfter(const std::vector<std::string>& segments, std::string_view collection) {
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i] == collection) return segments[i + 1];
  }
  return "";
}

}  // namespace tputrain::cli::cell_parts
