#include "tputrain/core/file.h"

#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace tputrain::core {
namespace {

Error FileError(std::string_view what, std::string message, std::string_view reason) {
  auto error = Error::Usage(what.empty() ? std::move(message) : std::string(what) + ": " + message);
  error.reason = std::string(reason);
  return error;
}

std::string Size(size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Result<std::string> ReadFile(const std::string& path, std::string_view what, size_t max_bytes) {
  // stat first: an ifstream opens a directory without complaint and then reads nothing.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Fail(FileError(what, "cannot read " + path, kFileNotFound));
    return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
  }
  if (S_ISDIR(info.st_mode)) return Fail(FileError(what, path + " is a directory", kFileIsDirectory));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
  }
  return ReadStream(in, path, what, max_bytes);
}

Result<std::string> ReadStream(std::istream& in, const std::string& path, std::string_view what, size_t max_bytes) {
  // Read in slices rather than trusting st_size: pipes and /proc files report 0.
  std::string content;
  char buffer[64 * 1024];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    content.append(buffer, static_cast<size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      return Fail(FileError(what, path + " is larger than " + Size(max_bytes), kFileTooLarge));
    }
  }
  if (in.bad()) {
    return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
  }
  return content;
}

bool IsFileNotFound(const Error& error) { return error.reason == kFileNotFound; }

}  // namespace tputrain::core
