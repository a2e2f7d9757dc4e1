#include "access_token_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace tputrain::emulator {
namespace {

// Any non-empty token will do: the emulator checks that one is sent, not what it is. The name says
// where it works, should it ever be pasted elsewhere.
constexpr std::string_view kToken = "tputrain-emulator-token\n";

core::Error CannotWrite(const std::string& path) {
  return core::Error::Internal("cannot write the emulator's access token file " + path + " (" + std::strerror(errno) +
                               ")");
}

}  // namespace

core::Result<std::unique_ptr<AccessTokenFile>> AccessTokenFile::Create() {
  std::error_code error;
  const auto temp = std::filesystem::temp_directory_path(error);
  std::string pattern = (error ? std::filesystem::path("/tmp") : temp) / "tputrain-emulator-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return core::Fail(CannotWrite(pattern));
  const std::string path = pattern + "/access-token";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return core::Fail(CannotWrite(path));
  const bool written = write(fd, kToken.data(), kToken.size()) == static_cast<ssize_t>(kToken.size());
  close(fd);
  std::unique_ptr<AccessTokenFile> file(new AccessTokenFile(pattern, path));
  if (!written) return core::Fail(CannotWrite(path));
  return file;
}

AccessTokenFile::AccessTokenFile(std::string directory, std::string path)
    : directory_(std::move(directory)), path_(std::move(path)) {}

AccessTokenFile::~AccessTokenFile() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::string AccessTokenFile::ExportLine() const {
  // The line is eval'ed: a TMPDIR with a space or a quote in it must stay one word.
  if (path_.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-") ==
      std::string::npos) {
    return "export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=" + path_;
  }
  std::string quoted = "'";
  for (char c : path_) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=" + quoted + "'";
}

}  // namespace tputrain::emulator
