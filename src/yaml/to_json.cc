#include "tputrain/yaml/to_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>

namespace tputrain::yaml {
namespace {

// An integer in `base` (underscores dropped), or, past int64, the number as a double (as go-yaml
// falls back to a float); past a double too, the text itself.
nlohmann::json Integer(const std::string& text, int base) {
  std::string digits;
  for (char c : text) {
    if (c != '_' && c != '+') digits += c;
  }
  const bool negative = !digits.empty() && digits[0] == '-';
  const size_t skip = (negative ? 1 : 0) + (base == 16 ? 2 : 0);  // "0x"
  long long value = 0;
  auto [end, error] = std::from_chars(digits.data() + skip, digits.data() + digits.size(), value, base);
  if (error == std::errc() && end == digits.data() + digits.size()) return negative ? -value : value;
  const double number = std::strtod(digits.c_str(), nullptr);
  if (base == 10 && std::isfinite(number)) return number;
  return text;
}

// YAML 1.1 plain-scalar resolution as go-yaml v2 (which sigs.k8s.io/yaml uses) does it. No
// number, boolean or null is longer than kMaxResolved characters; a longer scalar is a string
// and never reaches std::regex, which recurses once per character a repetition takes.
nlohmann::json ResolvePlainScalar(const std::string& text) {
  constexpr size_t kMaxResolved = 256;
  if (text.size() > kMaxResolved) return text;
  static const std::regex kNull("~|null|Null|NULL|");
  static const std::regex kTrue("y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON");
  static const std::regex kFalse("n|N|no|No|NO|false|False|FALSE|off|Off|OFF");
  static const std::regex kInt("[-+]?(0|[1-9][0-9_]*)");
  static const std::regex kOctal("[-+]?0[0-7_]+");
  static const std::regex kHex("[-+]?0x[0-9a-fA-F_]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
  static const std::regex kInf(R"([-+]?\.(inf|Inf|INF))");
  static const std::regex kNan(R"(\.(nan|NaN|NAN))");
  if (std::regex_match(text, kNull)) return nullptr;
  if (std::regex_match(text, kTrue)) return true;
  if (std::regex_match(text, kFalse)) return false;
  auto strip = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    return s;
  };
  if (std::regex_match(text, kInt)) return Integer(text, 10);
  if (std::regex_match(text, kHex)) return Integer(text, 16);
  if (std::regex_match(text, kOctal)) return Integer(text, 8);
  if (std::regex_match(text, kFloat)) {
    const double number = std::strtod(strip(text).c_str(), nullptr);
    if (std::isfinite(number)) return number;  // 1e999 has no JSON number: it stays as written
    return text;
  }
  if (std::regex_match(text, kInf) || std::regex_match(text, kNan)) return text;  // JSON has no inf/nan
  return text;
}

}  // namespace

nlohmann::json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "!" is yaml-cpp's tag for quoted (non-plain) scalars: always strings.
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return node.Scalar();
      return ResolvePlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      auto array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(ToJson(item));
      return array;
    }
    case YAML::NodeType::Map: {
      auto object = nlohmann::json::object();
      for (const auto& item : node) object[item.first.as<std::string>()] = ToJson(item.second);
      return object;
    }
    case YAML::NodeType::Undefined:
      break;
  }
  return nullptr;
}

}  // namespace tputrain::yaml
