#include "error_text.h"

#include "tputrain/core/utf8.h"

namespace tputrain::serving {

std::string OneLine(std::string text) { return core::OneLineExcerpt(text, 300, "..."); }

nlohmann::json AnswerJson(std::string_view body, const core::JsonLimits& limits) {
  if (body.size() > limits.max_bytes) return nullptr;
  return core::ParseJson(core::Utf8Excerpt(body, std::string_view::npos), "", limits).value_or(nullptr);
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
