#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

// KEY=VALUE flags (--labels, --metadata), read strictly: a malformed item is one usage line
// naming the flag, before any call.
namespace tputrain::gcp {

// "a=1,b=2" items as given (CLI11 splits on ','): each needs '=' and a non-empty key; a key given
// twice is refused rather than silently keeping one.
core::Result<std::map<std::string, std::string>> ParseKeyValues(std::string_view flag,
                                                                const std::vector<std::string>& items);

// Google Cloud labels: at most 64; keys 1-63 characters, a lowercase letter first, then
// lowercase letters, digits, '_' and '-'; values 0-63 of the same characters. `reserved` keys
// are tputrain's own (the run label), which a user may not set.
core::Result<std::map<std::string, std::string>> ParseLabels(std::string_view flag,
                                                             const std::vector<std::string>& items,
                                                             const std::vector<std::string_view>& reserved);

// Compute Engine metadata keys: 1-128 letters, digits, '-' and '_'.
core::Result<std::map<std::string, std::string>> ParseMetadata(std::string_view flag,
                                                               const std::vector<std::string>& items);

}  // namespace tputrain::gcp
