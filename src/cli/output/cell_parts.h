#pragma once

// The pieces resource cells are cut from: ledger keys (core::resource_name.h reads API paths).
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

inline bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace tputrain::cli::cell_parts
