#include "tputrain/k8s/names.h"

#include <string>

namespace tputrain::k8s {
namespace {

bool Alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsDnsLabel(std::string_view text) {
  if (text.empty() || text.size() > 63 || !Alnum(text.front()) || !Alnum(text.back())) return false;
  for (char c : text) {
    if (!Alnum(c) && c != '-') return false;
  }
  return true;
}

core::Status Refuse(std::string_view field, std::string_view name, std::string_view expected) {
  return core::Fail(core::Error::Usage(std::string(field) + ": expected " + std::string(expected) + ", got '" +
                                       std::string(name) + "'"));
}

}  // namespace

core::Status CheckNamespace(std::string_view field, std::string_view name) {
  if (!IsDnsLabel(name)) {
    return Refuse(field, name, "a namespace: 1-63 lowercase letters, digits and '-', a letter or digit at each end");
  }
  return {};
}

core::Status CheckObjectName(std::string_view field, std::string_view name) {
  bool ok = !name.empty() && name.size() <= 253;
  size_t start = 0;
  while (ok) {
    size_t dot = name.find('.', start);
    ok = IsDnsLabel(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) {
    return Refuse(field, name,
                  "a Kubernetes name: lowercase letters, digits, '-' and '.', a letter or digit at each end, at most "
                  "253 characters");
  }
  return {};
}

}  // namespace tputrain::k8s
