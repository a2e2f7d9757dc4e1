#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tputrain::http {

// The network libraries as loaded at run time (libcurl and its TLS library, as libcurl reports
// them) and wslay as built, for `tputrain version` and bug reports: (name, version) pairs.
std::vector<std::pair<std::string, std::string>> NetworkLibraryVersions();

}  // namespace tputrain::http
