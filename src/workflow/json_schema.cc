#include "json_schema.h"

#include <algorithm>

#include "stack_yaml.h"

namespace tputrain::workflow::internal {
namespace {

using nlohmann::json;

std::string TypeWord(const std::string& type) {
  if (type == "object") return "a map of keys";
  if (type == "array") return "a list";
  if (type == "integer") return "an integer";
  if (type == "boolean") return "true or false";
  if (type == "string") return "a string";
  if (type == "number") return "a number";
  return type;
}

bool IsType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "integer") return value.is_number_integer();
  if (type == "boolean") return value.is_boolean();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "null") return value.is_null();
  return false;
}

std::string Shown(const json& value) {
  if (value.is_null()) return "nothing";
  if (value.is_string()) return "'" + value.get<std::string>() + "'";
  if (value.is_object()) return "a map";
  if (value.is_array()) return "a list";
  return value.dump();
}

// Edit distance, for "did you mean" on an unknown key.
size_t Distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t previous = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t kept = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1)});
      previous = kept;
    }
  }
  return row[b.size()];
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  void Check(const json& value, const json& schema, const std::string& path) {
    const json& resolved = Resolve(schema);
    if (!resolved.is_object()) return;
    if (auto type = resolved.find("type"); type != resolved.end()) {
      std::vector<std::string> types;
      if (type->is_string()) types.push_back(type->get<std::string>());
      if (type->is_array()) {
        for (const auto& item : *type) types.push_back(item.get<std::string>());
      }
      const bool fits = std::any_of(types.begin(), types.end(), [&](const std::string& t) { return IsType(value, t); });
      if (!fits) {
        std::string expected;
        for (size_t i = 0; i < types.size(); ++i) {
          expected += (i == 0 ? "" : " or ") + TypeWord(types[i]);
        }
        Add(path, "expected " + expected + ", got " + Shown(value));
        return;
      }
    }
    if (auto allowed = resolved.find("enum"); allowed != resolved.end()) {
      if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
        std::string list;
        for (const auto& item : *allowed) list += (list.empty() ? "" : ", ") + item.get<std::string>();
        Add(path, "expected one of " + list + ", got " + Shown(value));
        return;
      }
    }
    if (value.is_object()) Object(value, resolved, path);
    if (value.is_array()) {
      if (auto items = resolved.find("items"); items != resolved.end()) {
        for (size_t i = 0; i < value.size(); ++i) Check(value[i], *items, ItemPath(path, i));
      }
    }
  }

  std::vector<SchemaProblem> problems;

 private:
  const json& Resolve(const json& schema) const {
    const json* at = &schema;
    for (int hops = 0; hops < 16 && at->is_object() && at->contains("$ref"); ++hops) {
      const std::string ref = (*at)["$ref"].get<std::string>();
      if (ref.rfind("#/$defs/", 0) != 0) break;
      const std::string name = ref.substr(8);
      const json& defs = root_["$defs"];
      if (!defs.contains(name)) break;
      at = &defs[name];
    }
    return *at;
  }

  void Object(const json& value, const json& schema, const std::string& path) {
    const json properties = schema.value("properties", json::object());
    for (const auto& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>())) Add(path, "missing key '" + name.get<std::string>() + "'");
    }
    if (auto least = schema.find("minProperties"); least != schema.end() && value.size() < least->get<size_t>()) {
      std::string keys;
      for (const auto& [key, _] : properties.items()) keys += (keys.empty() ? "" : ", ") + key;
      Add(path, "expected one of its keys: " + keys);
    }
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, item] : value.items()) {
      const std::string child = ChildPath(path, key);
      if (auto property = properties.find(key); property != properties.end()) {
        Check(item, *property, child);
      } else if (additional != schema.end() && additional->is_object()) {
        Check(item, *additional, child);
      } else if (additional != schema.end() && *additional == false) {
        Add(child, UnknownKey(key, properties));
      }
    }
  }

  static std::string UnknownKey(const std::string& key, const json& properties) {
    std::string best;
    size_t best_distance = 3;  // a typo is at most two edits away
    std::string keys;
    for (const auto& [name, _] : properties.items()) {
      keys += (keys.empty() ? "" : ", ") + name;
      const size_t distance = Distance(key, name);
      if (distance < best_distance) {
        best_distance = distance;
        best = name;
      }
    }
    if (!best.empty()) return "unknown key; did you mean '" + best + "'?";
    return "unknown key (expected " + keys + ")";
  }

  void Add(const std::string& path, std::string problem) { problems.push_back({path, std::move(problem)}); }

  const json& root_;
};

}  // namespace

std::vector<SchemaProblem> CheckSchema(const json& value, const json& schema, const json& root) {
  Checker checker(root);
  checker.Check(value, schema, "");
  return checker.problems;
}

}  // namespace tputrain::workflow::internal
