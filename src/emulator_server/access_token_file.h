#pragma once

#include <memory>
#include <string>

#include "tputrain/core/result.h"

namespace tputrain::emulator {

// The access token the emulator hands its clients: a file of its own, in a fresh private
// directory, named by the `export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=...` line it prints. gcloud and
// tputrain both read that variable, so the printed lines alone point either at the emulator with
// credentials it takes (it takes any token), and no command falls through to the user's real
// Google credentials or fails for want of them. Removed, with its directory, when the emulator
// stops.
class AccessTokenFile {
 public:
  static core::Result<std::unique_ptr<AccessTokenFile>> Create();
  ~AccessTokenFile();
  AccessTokenFile(const AccessTokenFile&) = delete;
  AccessTokenFile& operator=(const AccessTokenFile&) = delete;

  const std::string& path() const { return path_; }
  std::string ExportLine() const;

 private:
  AccessTokenFile(std::string directory, std::string path);
  std::string directory_;
  std::string path_;
};

}  // namespace tputrain::emulator
