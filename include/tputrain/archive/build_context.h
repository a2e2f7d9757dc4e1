#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tputrain/archive/tar_gz.h"
#include "tputrain/core/result.h"

namespace tputrain::archive {

// What a build uploads from a directory: its files after the ignore rules, sorted by path so the
// same tree gives the same tarball.
struct BuildContext {
  std::vector<ContextFile> files;  // directories, files and links, parents before children
  std::uint64_t bytes = 0;         // the regular files' total size, before compression
  std::size_t file_count = 0;      // regular files and links
  std::size_t ignored = 0;         // files and directories the rules left out
  std::string rules_source;        // which ignore rules applied (RulesForDirectory)
};

struct ContextLimits {
  std::uint64_t max_bytes = 0;    // 0: no limit
  std::string limit_flag;         // named in the error, e.g. "--max-context-size"
  std::string dir_field = "DIR";  // the argument the directory came from
};

// Collects DIR's context for a docker build. One usage line each, naming the argument or flag,
// before anything is packed: DIR missing or not a directory, no Dockerfile at its root (checked
// before the walk) or one the ignore rules leave out, more than `limits.max_bytes` (the walk
// stops there; the error names the largest files met, which .gcloudignore could leave out).
core::Result<BuildContext> CollectBuildContext(const std::filesystem::path& dir, const ContextLimits& limits);

}  // namespace tputrain::archive
