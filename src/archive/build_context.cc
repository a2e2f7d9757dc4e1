#include "tputrain/archive/build_context.h"

#include <algorithm>

#include "ignore_rules.h"
#include "tputrain/core/number.h"

namespace tputrain::archive {
namespace {

namespace fs = std::filesystem;

}  // namespace

core::Result<BuildContext> CollectBuildContext(const fs::path& dir, const ContextLimits& limits) {
  const std::string quoted = "'" + dir.string() + "'";
  auto refuse = [&](const std::string& field, const std::string& why) {
    return core::Fail(core::Error::Usage(field + ": " + why));
  };
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return refuse(limits.dir_field, quoted + " is not a directory; give the build context's directory");
  }
  if (!fs::is_regular_file(dir / "Dockerfile", error)) {
    return refuse(limits.dir_field, quoted + " has no Dockerfile at its root (tputrain render maxtext-ray-image -o " +
                                        limits.dir_field + " writes one)");
  }
  auto rules = RulesForDirectory(dir);
  if (!rules) return core::Fail(rules.error());

  BuildContext context;
  context.rules_source = rules->source;
  std::vector<std::pair<std::uint64_t, std::string>> sizes;
  auto too_large = [&] {
    std::sort(sizes.rbegin(), sizes.rend());
    std::string largest;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, sizes.size()); ++i) {
      largest += (i > 0 ? ", " : "") + sizes[i].second + " (" + core::HumanBytes(sizes[i].first) + ")";
    }
    return refuse(limits.limit_flag, "context " + quoted + " holds more than " + core::HumanBytes(limits.max_bytes) +
                                         "; list what the image does not need in .gcloudignore (largest: " + largest +
                                         ")");
  };
  fs::recursive_directory_iterator walk(dir, fs::directory_options::none, error);
  if (error) return refuse(limits.dir_field, quoted + " cannot be listed: " + error.message());
  for (auto it = walk; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) return refuse(limits.dir_field, quoted + " cannot be listed: " + error.message());
    const std::string archive_path = it->path().lexically_relative(dir).generic_string();
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
      // Stop at the limit rather than walk a home directory given by mistake.
      if (limits.max_bytes > 0 && context.bytes > limits.max_bytes) return too_large();
    }
  }
  std::sort(context.files.begin(), context.files.end(),
            [](const ContextFile& a, const ContextFile& b) { return a.archive_path < b.archive_path; });
  const bool has_dockerfile = std::any_of(context.files.begin(), context.files.end(),
                                          [](const ContextFile& file) { return file.archive_path == "Dockerfile"; });
  if (!has_dockerfile) {
    return refuse(limits.dir_field, quoted + " has a Dockerfile, but " + context.rules_source + " leaves it out");
  }
  return context;
}

}  // namespace tputrain::archive
