#include "tputrain/http/library_versions.h"

#include <curl/curl.h>
#include <wslay/wslay.h>

namespace tputrain::http {

std::vector<std::pair<std::string, std::string>> NetworkLibraryVersions() {
  const curl_version_info_data* curl = curl_version_info(CURLVERSION_NOW);
  std::vector<std::pair<std::string, std::string>> versions = {{"libcurl", curl->version}};
  if (curl->ssl_version != nullptr) versions.emplace_back("tls", curl->ssl_version);
  versions.emplace_back("wslay", WSLAY_VERSION);
  return versions;
}

}  // namespace tputrain::http
