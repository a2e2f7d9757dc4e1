// gcloudignore matching. The rules are git's (gitignore(5)) as gcloud applies them; see the
// header for the differences that matter (patterns with a '/' inside still match at any depth).
#include "ignore_rules.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace tputrain::archive {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxIgnoreFileBytes = 1 << 20;
constexpr std::string_view kIncludeDirective = "!include:";

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty() && part != ".") parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// Trailing spaces go unless escaped with a backslash; "\X" stands for X.
std::string Unescape(std::string_view line) {
  std::size_t end = line.size();
  while (end > 0 && line[end - 1] == ' ' && !(end >= 2 && line[end - 2] == '\\')) --end;
  line = line.substr(0, end);
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += line[++i];
    } else {
      out += line[i];
    }
  }
  return out;
}

core::Result<std::string> ReadIgnoreFile(const fs::path& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  if (error) return core::Fail(core::Error::Usage(path.string() + ": cannot be read"));
  if (size > kMaxIgnoreFileBytes) {
    return core::Fail(core::Error::Usage(path.string() + ": larger than 1 MiB; an ignore file lists patterns"));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

core::Result<IgnoreRules> IgnoreRules::Parse(std::string_view text, const fs::path& dir, int include_depth) {
  IgnoreRules rules;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string_view directive(line);
      directive.remove_prefix(1);
      while (!directive.empty() && directive.front() == ' ') directive.remove_prefix(1);
      if (directive.rfind(kIncludeDirective, 0) != 0 || include_depth <= 0) continue;
      const std::string name(directive.substr(kIncludeDirective.size()));
      if (name.empty() || name.find('/') != std::string::npos) {
        return core::Fail(core::Error::Usage((dir / ".gcloudignore").string() + ": #!include:" + name +
                                             " must name a file in the same directory"));
      }
      auto included_text = ReadIgnoreFile(dir / name);
      if (!included_text) return core::Fail(included_text.error());
      auto included = Parse(*included_text, dir, include_depth - 1);
      if (!included) return core::Fail(included.error());
      rules.patterns_.insert(rules.patterns_.end(), included->patterns_.begin(), included->patterns_.end());
      continue;
    }
    Pattern pattern;
    std::string_view body(line);
    if (body.front() == '!') {
      pattern.negated = true;
      body.remove_prefix(1);
    }
    std::string unescaped = Unescape(body);
    if (!unescaped.empty() && unescaped.back() == '/') {
      pattern.dir_only = true;
      unescaped.pop_back();
    }
    if (unescaped.empty()) continue;
    // A leading '/' anchors: it becomes an empty first part, which only the root matches.
    std::string_view rest(unescaped);
    if (rest.front() == '/') {
      pattern.parts.emplace_back();
      rest.remove_prefix(1);
    }
    for (auto part : SplitPath(rest)) pattern.parts.emplace_back(part);
    if (pattern.parts.empty() || (pattern.parts.size() == 1 && pattern.parts[0].empty())) continue;
    rules.patterns_.push_back(std::move(pattern));
  }
  return rules;
}

bool IgnoreRules::Matches(const Pattern& pattern, const std::vector<std::string_view>& path, bool is_dir) const {
  if (pattern.dir_only && !is_dir) return false;
  const auto& parts = pattern.parts;
  // Right to left: parts[0, i) against path[0, j). Unanchored, the parts may match any suffix of
  // the path; anchored (left of a "**", or right of a leading '/'), they must use all of it.
  auto match = [&](auto& self, std::size_t i, std::size_t j, bool anchored) -> bool {
    if (i == 0) return !anchored || j == 0;
    const std::string& part = parts[i - 1];
    if (part.empty()) return j == 0;  // the leading '/': only the root is left of it
    if (part == "**") {
      for (std::size_t k = 0; k <= j; ++k) {
        if (self(self, i - 1, k, true)) return true;
      }
      return false;
    }
    if (j == 0 || fnmatch(part.c_str(), std::string(path[j - 1]).c_str(), 0) != 0) return false;
    // A lone "*" opening a longer pattern stands for one top-level directory ("*/bar" is
    // bar one level down), not for any depth.
    const bool opening_star = i == 1 && part == "*" && parts.size() > 1;
    return self(self, i - 1, j - 1, anchored || opening_star);
  };
  return match(match, parts.size(), path.size(), false);
}

bool IgnoreRules::IsIgnored(std::string_view path, bool is_dir) const {
  const auto parts = SplitPath(path);
  // Each leading directory first: an ignored directory cannot have a child re-included.
  for (std::size_t length = 1; length <= parts.size(); ++length) {
    const std::vector<std::string_view> prefix(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(length));
    const bool prefix_is_dir = length < parts.size() || is_dir;
    bool ignored = false;
    for (const auto& pattern : patterns_) {
      if (Matches(pattern, prefix, prefix_is_dir)) ignored = !pattern.negated;
    }
    if (ignored) return true;
  }
  return false;
}

core::Result<ContextRules> RulesForDirectory(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir / ".gcloudignore", error)) {
    auto text = ReadIgnoreFile(dir / ".gcloudignore");
    if (!text) return core::Fail(text.error());
    auto rules = IgnoreRules::Parse(*text, dir);
    if (!rules) return core::Fail(rules.error());
    return ContextRules{std::move(*rules), ".gcloudignore"};
  }
  const bool has_gitignore = fs::exists(dir / ".gitignore", error);
  if (!has_gitignore && !fs::exists(dir / ".git", error)) return ContextRules{IgnoreRules(), "none"};
  std::string defaults = ".gcloudignore\n.git\n.gitignore\n";
  if (has_gitignore) defaults += "#!include:.gitignore\n";
  auto rules = IgnoreRules::Parse(defaults, dir);
  if (!rules) return core::Fail(rules.error());
  return ContextRules{std::move(*rules), has_gitignore ? "gcloud's default with .gitignore" : "gcloud's default"};
}

}  // namespace tputrain::archive
