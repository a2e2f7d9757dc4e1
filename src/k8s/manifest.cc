#include "tputrain/k8s/manifest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>

#include <yaml-cpp/yaml.h>

#include "tputrain/k8s/json_fields.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::k8s {
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

core::Result<Object> MakeObject(nlohmann::json json, const std::string& where) {
  if (!json.is_object()) return core::Fail(core::Error::Usage(where + ": expected a mapping (a Kubernetes object)"));
  Object object;
  object.source = where;
  auto field = [&](const char* name) -> std::string {
    return json.contains(name) && json[name].is_string() ? json[name].get<std::string>() : "";
  };
  object.api_version = field("apiVersion");
  object.kind = field("kind");
  if (object.api_version.empty()) return core::Fail(core::Error::Usage(where + ": apiVersion is required"));
  if (object.kind.empty()) return core::Fail(core::Error::Usage(where + ": kind is required"));
  const auto& metadata = json.contains("metadata") ? json["metadata"] : nlohmann::json();
  if (!metadata.is_object() || !metadata.contains("name") || !metadata["name"].is_string() ||
      metadata["name"].get<std::string>().empty()) {
    return core::Fail(core::Error::Usage(where + ": metadata.name is required (" + object.kind + ")"));
  }
  object.name = metadata["name"].get<std::string>();
  if (metadata.contains("namespace") && metadata["namespace"].is_string()) {
    object.ns = metadata["namespace"].get<std::string>();
  }
  object.json = std::move(json);
  return object;
}

}  // namespace

std::string Object::Describe() const { return kind + " " + (ns.empty() ? name : ns + "/" + name); }

core::Result<std::vector<Object>> ParseManifests(std::string_view text, const std::string& source) {
  auto loaded = yaml::LoadAll(text, source);
  if (!loaded) return core::Fail(loaded.error());
  const std::vector<YAML::Node>& documents = *loaded;
  std::vector<Object> objects;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (!documents[i] || documents[i].IsNull()) continue;
    std::string where = source + " (document " + std::to_string(i + 1) + ")";
    nlohmann::json json = ToJson(documents[i]);
    if (StringAt(json, "kind") == "List" && json.contains("items") && json["items"].is_array()) {
      for (size_t j = 0; j < json["items"].size(); ++j) {
        auto object = MakeObject(json["items"][j], where + " items[" + std::to_string(j) + "]");
        if (!object) return core::Fail(object.error());
        objects.push_back(std::move(*object));
      }
      continue;
    }
    auto object = MakeObject(std::move(json), where);
    if (!object) return core::Fail(object.error());
    objects.push_back(std::move(*object));
  }
  if (objects.empty()) return core::Fail(core::Error::Usage(source + ": no Kubernetes objects found"));
  return objects;
}

int ApplyRank(std::string_view kind) {
  if (kind == "CustomResourceDefinition") return 0;
  if (kind == "Namespace") return 1;
  if (kind == "ServiceAccount" || kind == "ClusterRole" || kind == "Role" || kind == "ConfigMap" || kind == "Secret" ||
      kind == "PersistentVolume" || kind == "PersistentVolumeClaim" || kind == "StorageClass" ||
      kind == "PriorityClass" || kind == "ResourceQuota" || kind == "LimitRange") {
    return 2;
  }
  if (kind == "ClusterRoleBinding" || kind == "RoleBinding" || kind == "Service") return 3;
  return 4;
}

std::vector<Object> OrderForApply(std::vector<Object> objects) {
  std::stable_sort(objects.begin(), objects.end(),
                   [](const Object& a, const Object& b) { return ApplyRank(a.kind) < ApplyRank(b.kind); });
  return objects;
}

}  // namespace tputrain::k8s
