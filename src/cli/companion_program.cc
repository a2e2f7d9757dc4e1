#include "companion_program.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace tputrain::cli {
namespace {

namespace fs = std::filesystem;

bool IsExecutableFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> FindCompanionProgram(const std::string& name, const std::string& executable,
                                                const core::Env& env) {
  std::error_code error;
  const fs::path self = executable;
  if (!executable.empty() && IsExecutableFile(self.parent_path() / name)) return (self.parent_path() / name).string();
  const std::string path = env.GetOr("PATH", "");
  size_t start = 0;
  while (start <= path.size()) {
    const size_t colon = path.find(':', start);
    const std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    // An empty entry is the working directory, as the shell reads PATH.
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (IsExecutableFile(candidate)) return fs::absolute(candidate, error).string();
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

core::Error ExecCompanionProgram(const std::string& path, const std::vector<std::string>& args) {
  std::vector<std::string> words = {fs::path(path).filename().string()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(path.c_str(), argv.data());
  return core::Error::Make(core::ErrorKind::kFailedPrecondition,
                           "cannot run " + path + ": " + std::string(std::strerror(errno)));
}

}  // namespace tputrain::cli
