#pragma once

// The pieces entry places are cut from: ledger keys (core::resource_name.h reads API paths).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/workflow/entry_place.h"

namespace tputrain::workflow::entry_place_parts {

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

// "ROLE for MEMBER" (a Kubernetes service account as "ksa NS/NAME", in either of workload
// identity's spellings), and the resource the role is on ("bucket B"); from the details, else the
// key (TARGET/RESOURCE|ROLE|MEMBER).
EntryPlace IamMemberPlace(const std::string& key, const nlohmann::json& details);

}  // namespace tputrain::workflow::entry_place_parts
