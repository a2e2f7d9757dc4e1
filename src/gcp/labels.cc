#include "tputrain/gcp/labels.h"

#include <algorithm>

namespace tputrain::gcp {
namespace {

core::Error Refused(std::string_view flag, std::string_view item, std::string_view expected) {
  return core::Error::Usage(std::string(flag) + ": expected " + std::string(expected) + ", got '" + std::string(item) +
                            "'");
}

bool LabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; }

bool IsLabelText(std::string_view text) { return std::all_of(text.begin(), text.end(), LabelChar); }

}  // namespace

core::Result<std::map<std::string, std::string>> ParseKeyValues(std::string_view flag,
                                                                const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return core::Fail(Refused(flag, item, "KEY=VALUE"));
    auto [it, inserted] = out.emplace(item.substr(0, eq), item.substr(eq + 1));
    if (!inserted) return core::Fail(Refused(flag, item, "each KEY once"));
  }
  return out;
}

core::Result<std::map<std::string, std::string>> ParseLabels(std::string_view flag,
                                                             const std::vector<std::string>& items,
                                                             const std::vector<std::string_view>& reserved) {
  auto labels = ParseKeyValues(flag, items);
  if (!labels) return labels;
  if (labels->size() > 64) return core::Fail(core::Error::Usage(std::string(flag) + ": at most 64 labels"));
  for (const auto& [key, value] : *labels) {
    std::string item = key + "=" + value;
    if (key.size() > 63 || !(key.front() >= 'a' && key.front() <= 'z') || !IsLabelText(key)) {
      return core::Fail(
          Refused(flag, item, "label keys of 1-63 lowercase letters, digits, '_' or '-', starting with a letter"));
    }
    if (value.size() > 63 || !IsLabelText(value)) {
      return core::Fail(Refused(flag, item, "label values of 0-63 lowercase letters, digits, '_' or '-'"));
    }
    if (std::find(reserved.begin(), reserved.end(), key) != reserved.end()) {
      return core::Fail(Refused(flag, item, "a label key other than " + key + " (tputrain sets it itself)"));
    }
  }
  return labels;
}

core::Result<std::map<std::string, std::string>> ParseMetadata(std::string_view flag,
                                                               const std::vector<std::string>& items) {
  auto metadata = ParseKeyValues(flag, items);
  if (!metadata) return metadata;
  for (const auto& [key, value] : *metadata) {
    bool ok =
        key.size() <= 128 && std::all_of(key.begin(), key.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        });
    if (!ok) return core::Fail(Refused(flag, key + "=...", "metadata keys of 1-128 letters, digits, '-' or '_'"));
  }
  return metadata;
}

}  // namespace tputrain::gcp
