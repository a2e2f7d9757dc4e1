#include "error_text.h"

namespace tputrain::serving {

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string squeezed;
  for (char c : text) {
    if (c == ' ' && !squeezed.empty() && squeezed.back() == ' ') continue;
    squeezed += c;
  }
  constexpr std::size_t kLongest = 300;
  if (squeezed.size() > kLongest) {
    squeezed.resize(kLongest);
    squeezed.append("...");
  }
  return squeezed;
}

std::string ValidationDetail(const nlohmann::json& detail) {
  std::string out;
  for (const auto& item : detail) {
    if (!item.is_object()) continue;
    std::string where;
    for (const auto& part : item.value("loc", nlohmann::json::array())) {
      where += (where.empty() ? "" : ".") + (part.is_string() ? part.get<std::string>() : part.dump());
    }
    out += (out.empty() ? "" : "; ") + where + ": " + item.value("msg", std::string("invalid"));
  }
  return out;
}

std::string ServiceProxyStatus(const nlohmann::json& body) {
  if (!body.is_object() || body.value("kind", "") != "Status") return "";
  return "the API server's service proxy: " + OneLine(body.value("message", ""));
}

}  // namespace tputrain::serving
