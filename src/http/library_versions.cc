#include "tputrain/http/library_versions.h"

#include <wslay/wslay.h>

#include "curl_library.h"

namespace tputrain::http {

std::vector<std::pair<std::string, std::string>> NetworkLibraryVersions() {
  std::vector<std::pair<std::string, std::string>> versions;
  // The one place besides a request that opens libcurl: the version is the loaded library's.
  if (auto curl = OpenCurl()) {
    const curl_version_info_data* info = (*curl)->version_info(CURLVERSION_NOW);
    versions.emplace_back("libcurl", info->version);
    if (info->ssl_version != nullptr) versions.emplace_back("tls", info->ssl_version);
  } else {
    versions.emplace_back("libcurl", "not loaded: " + curl.error().message);
  }
  versions.emplace_back("wslay", WSLAY_VERSION);
  return versions;
}

}  // namespace tputrain::http
