#include "httplib_request.h"

#include <algorithm>
#include <cctype>

namespace tputrain::emulator {

ApiRequest FromHttplib(const httplib::Request& request) {
  ApiRequest out;
  out.method = request.method;
  out.path = request.path;
  for (const auto& [name, value] : request.params) out.query.emplace(name, value);
  for (const auto& [name, value] : request.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    out.headers[lower] = value;
  }
  out.body = request.body;
  return out;
}

}  // namespace tputrain::emulator
