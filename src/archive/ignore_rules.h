#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::archive {

// The patterns of a .gcloudignore (gitignore syntax, plus "#!include:FILE" lines that insert
// another ignore file of the same directory), matched as gcloud matches them: a pattern is
// matched against the end of a path component by component, so "build" and "out/*.o" match at
// any depth, a leading '/' anchors at the context's root, "**" spans directories, a trailing '/'
// matches directories only, '!' re-includes, and the last matching pattern wins. An ignored
// directory hides everything under it, as in git.
class IgnoreRules {
 public:
  // Parses `text`; `dir` is where "#!include:" files are read from (one level deep, as gcloud).
  static core::Result<IgnoreRules> Parse(std::string_view text, const std::filesystem::path& dir,
                                         int include_depth = 1);

  // `path` is relative to the context root, '/'-separated.
  bool IsIgnored(std::string_view path, bool is_dir) const;
  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::vector<std::string> parts;
    bool negated = false;
    bool dir_only = false;
  };
  bool Matches(const Pattern& pattern, const std::vector<std::string_view>& path, bool is_dir) const;

  std::vector<Pattern> patterns_;
};

// The rules gcloud applies to DIR: its .gcloudignore when there is one; otherwise, when DIR has
// a .git or a .gitignore, gcloud's default (.gcloudignore, .git, .gitignore, and the entries of
// .gitignore); otherwise none. `source` says which, for the progress line.
struct ContextRules {
  IgnoreRules rules;
  std::string source;  // ".gcloudignore", "gcloud's default with .gitignore", "none"
};
core::Result<ContextRules> RulesForDirectory(const std::filesystem::path& dir);

}  // namespace tputrain::archive
