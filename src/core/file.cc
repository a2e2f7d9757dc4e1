#include "tputrain/core/file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "tputrain/core/text_file.h"
#include "tputrain/core/utf8.h"

namespace tputrain::core {
namespace {

Error FileError(std::string_view what, std::string message, std::string_view reason) {
  auto error = Error::Usage(what.empty() ? std::move(message) : std::string(what) + ": " + message);
  error.reason = std::string(reason);
  return error;
}

std::string Millis(std::chrono::milliseconds wait) {
  if (wait.count() % 1000 == 0) return std::to_string(wait.count() / 1000) + " s";
  return std::to_string(wait.count()) + " ms";
}

std::string Size(size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Result<std::string> ReadFile(const std::string& path, std::string_view what, size_t max_bytes,
                             std::chrono::milliseconds pipe_wait) {
  // O_NONBLOCK: a FIFO opens at once, writer or not (regular files ignore the flag).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Fail(FileError(what, "cannot read " + path, kFileNotFound));
    if (errno == EISDIR) return Fail(FileError(what, path + " is a directory", kFileIsDirectory));
    return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
  }
  if (S_ISDIR(info.st_mode)) return Fail(FileError(what, path + " is a directory", kFileIsDirectory));
  const bool regular = S_ISREG(info.st_mode);
  if (regular && static_cast<uint64_t>(info.st_size) > max_bytes) {
    // Refused unread: its size is known (a file that is still growing is cut off below).
    return Fail(FileError(what, path + " is larger than " + Size(max_bytes), kFileTooLarge));
  }
  if (regular) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // Read in slices rather than trusting st_size: pipes and /proc files report 0.
  const auto deadline = std::chrono::steady_clock::now() + pipe_wait;
  std::string content;
  char buffer[64 * 1024];
  while (true) {
    if (!regular) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd ready{fd, POLLIN, 0};
      const int polled = left.count() > 0 ? ::poll(&ready, 1, static_cast<int>(left.count())) : 0;
      if (polled < 0 && errno == EINTR) continue;
      if (polled == 0) {
        const std::string said = content.empty() ? " gave nothing to read in " : " did not end in ";
        return Fail(FileError(what, path + " is a pipe that" + said + Millis(pipe_wait), kFileUnreadable));
      }
    }
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      return Fail(FileError(what, "cannot read " + path + " (" + std::strerror(errno) + ")", kFileUnreadable));
    }
    if (n == 0) return content;
    content.append(buffer, static_cast<size_t>(n));
    if (content.size() > max_bytes) {
      return Fail(FileError(what, path + " is larger than " + Size(max_bytes), kFileTooLarge));
    }
  }
}

Result<std::string> ReadTextFile(const std::string& path, std::string_view what, size_t max_bytes) {
  auto text = ReadFile(path, what, max_bytes);
  if (text && !IsValidUtf8(*text)) return Fail(FileError(what, path + " is not UTF-8 text", kFileNotText));
  return text;
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
