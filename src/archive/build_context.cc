#include "tputrain/archive/build_context.h"

#include <algorithm>

#include "tputrain/archive/ignore_rules.h"
#include "tputrain/core/number.h"

namespace tputrain::archive {
namespace {

namespace fs = std::filesystem;

}  // namespace

core::Result<BuildContext> CollectBuildContext(const fs::path& dir, const ContextLimits& limits) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return core::Fail(core::Error::Usage(dir.string() + ": not a directory; give the build context's directory"));
  }
  auto rules = RulesForDirectory(dir);
  if (!rules) return core::Fail(rules.error());

  BuildContext context;
  context.rules_source = rules->source;
  std::vector<std::pair<std::uint64_t, std::string>> sizes;
  fs::recursive_directory_iterator walk(dir, fs::directory_options::none, error);
  if (error) return core::Fail(core::Error::Usage(dir.string() + ": cannot be listed: " + error.message()));
  for (auto it = walk; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) return core::Fail(core::Error::Usage(dir.string() + ": cannot be listed: " + error.message()));
    const fs::path relative = it->path().lexically_relative(dir);
    const std::string archive_path = relative.generic_string();
    const bool is_link = it->is_symlink(error);
    const bool is_dir = !is_link && it->is_directory(error);
    if (rules->rules.IsIgnored(archive_path, is_dir)) {
      ++context.ignored;
      if (is_dir) it.disable_recursion_pending();
      continue;
    }
    context.files.push_back({archive_path, it->path()});
    if (is_dir) continue;
    ++context.file_count;
    if (!is_link && it->is_regular_file(error)) {
      const auto size = it->file_size(error);
      context.bytes += size;
      sizes.emplace_back(size, archive_path);
    }
  }
  std::sort(context.files.begin(), context.files.end(),
            [](const ContextFile& a, const ContextFile& b) { return a.archive_path < b.archive_path; });

  const bool has_dockerfile = std::any_of(context.files.begin(), context.files.end(),
                                          [](const ContextFile& file) { return file.archive_path == "Dockerfile"; });
  if (!has_dockerfile) {
    const bool exists = fs::exists(dir / "Dockerfile", error);
    return core::Fail(core::Error::Usage(
        dir.string() + (exists ? ": its Dockerfile is excluded by " + context.rules_source
                               : ": no Dockerfile at the context's root (tputrain render maxtext-ray-image -o "
                                 "DIR writes one)")));
  }
  if (limits.max_bytes > 0 && context.bytes > limits.max_bytes) {
    std::sort(sizes.rbegin(), sizes.rend());
    std::string largest;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, sizes.size()); ++i) {
      largest += (i > 0 ? ", " : "") + sizes[i].second + " (" + core::HumanBytes(sizes[i].first) + ")";
    }
    return core::Fail(core::Error::Usage(dir.string() + ": the context holds " + core::HumanBytes(context.bytes) +
                                         ", more than " + limits.limit_flag + " " + core::HumanBytes(limits.max_bytes) +
                                         "; list what the image does not need in .gcloudignore (largest: " + largest +
                                         ")"));
  }
  return context;
}

}  // namespace tputrain::archive
