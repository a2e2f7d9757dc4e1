#include "tputrain/core/env.h"

#include <pwd.h>
#include <unistd.h>

extern char** environ;

namespace tputrain::core {

Env Env::FromProcess() {
  std::map<std::string, std::string> vars;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    auto eq = text.find('=');
    if (eq == std::string::npos) continue;
    vars.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return Env(std::move(vars));
}

std::optional<std::string> Env::Get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string Env::GetOr(const std::string& name, std::string fallback) const {
  auto value = Get(name);
  return value ? *value : std::move(fallback);
}

std::string Env::Home() const {
  if (auto home = Get("HOME")) return *home;
  if (const passwd* entry = getpwuid(getuid()); entry != nullptr && entry->pw_dir != nullptr) {
    return entry->pw_dir;
  }
  return "/";
}

}  // namespace tputrain::core
