#include "tputrain/emulator/schema.h"

#include <cctype>

#include "discovery_subset.h"
#include "tputrain/core/json.h"
#include "tputrain/core/utf8.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

struct Walk {
  const json& schemas;
  std::string type_prefix;  // "type.googleapis.com/google.container.v1."
  std::string_view method_id;
};

std::string Join(const std::string& path, std::string_view field) {
  std::string snake = SnakeCase(field);
  return path.empty() ? snake : path + "." + snake;
}

std::string At(const std::string& path) { return path.empty() ? "" : " at '" + path + "'"; }

bool IsDigits(std::string_view text, bool allow_sign) {
  if (!text.empty() && allow_sign && text[0] == '-') text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string ScalarTypeName(const json& spec) {
  std::string type = spec.value("type", "");
  std::string format = spec.value("format", "");
  if (type == "boolean") return "TYPE_BOOL";
  if (type == "number") return format == "float" ? "TYPE_FLOAT" : "TYPE_DOUBLE";
  if (type == "integer") return format == "uint32" ? "TYPE_UINT32" : "TYPE_INT32";
  if (format == "int64") return "TYPE_INT64";
  if (format == "uint64") return "TYPE_UINT64";
  if (format == "byte") return "TYPE_BYTES";
  return "TYPE_STRING";
}

// The value as the error quotes it: a whole list or object would make the answer as large as the
// request, so the quote stops after 200 bytes (on a character boundary).
std::string Quoted(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return core::Utf8Excerpt(text, 200, "...");
}

std::optional<Violation> InvalidValue(const std::string& path, const std::string& type_name, const json& value) {
  return Violation{path, "Invalid value" + At(path) + " (" + type_name + "), " + Quoted(value)};
}

std::optional<Violation> CheckValue(const Walk& walk, const json& spec, const json& value, const std::string& path);

std::optional<Violation> CheckObject(const Walk& walk, const json& properties, const std::string& type_name,
                                     const json& value, const std::string& path) {
  if (!value.is_object()) return InvalidValue(path, type_name, value);
  for (const auto& [key, field_value] : value.items()) {
    auto spec = properties.find(key);
    if (spec == properties.end()) {
      return Violation{
          path, "Invalid JSON payload received. Unknown name \"" + key + "\"" + At(path) + ": Cannot find field."};
    }
    if (auto violation = CheckValue(walk, *spec, field_value, Join(path, key))) return violation;
  }
  for (const auto& [key, spec] : properties.items()) {
    auto required = spec.find("requiredFor");
    if (required == spec.end() || value.contains(key)) continue;
    for (const auto& method : *required) {
      // "Required." in a resource's description speaks of creating it; an update names what it
      // changes in its field mask (AIP-134), so a patch body carries only those fields.
      bool is_update = walk.method_id.size() >= 6 && walk.method_id.substr(walk.method_id.size() - 6) == ".patch";
      if ((method == "*" && !is_update) || method == walk.method_id) {
        std::string field = Join(path, key);
        return Violation{field, "Invalid JSON payload received. Missing required field '" + field + "'."};
      }
    }
  }
  return std::nullopt;
}

std::optional<Violation> CheckValue(const Walk& walk, const json& spec, const json& value, const std::string& path) {
  if (value.is_null()) return std::nullopt;  // proto3 JSON: null means the default
  if (auto ref = spec.find("$ref"); ref != spec.end()) {
    const std::string name = *ref;
    auto schema = walk.schemas.find(name);
    if (schema == walk.schemas.end()) return std::nullopt;  // outside the subset: accept
    return CheckObject(walk, (*schema)["properties"], walk.type_prefix + name, value, path);
  }
  std::string type = spec.value("type", "");
  if (type == "any") return std::nullopt;
  if (type == "object") {
    if (auto properties = spec.find("properties"); properties != spec.end()) {
      return CheckObject(walk, *properties, "object", value, path);
    }
    if (!value.is_object()) return InvalidValue(path, "map", value);
    if (auto element = spec.find("additionalProperties"); element != spec.end()) {
      for (const auto& [key, item] : value.items()) {
        if (auto violation = CheckValue(walk, *element, item, path + "[" + key + "]")) return violation;
      }
    }
    return std::nullopt;
  }
  if (type == "array") {
    if (!value.is_array()) return InvalidValue(path, "list", value);
    size_t index = 0;
    for (const auto& item : value) {
      if (auto violation = CheckValue(walk, spec["items"], item, path + "[" + std::to_string(index++) + "]")) {
        return violation;
      }
    }
    return std::nullopt;
  }
  std::string format = spec.value("format", "");
  bool ok = true;
  if (type == "boolean") {
    ok = value.is_boolean();
  } else if (type == "integer") {
    ok = value.is_number_integer() || (value.is_string() && IsDigits(value.get<std::string>(), format != "uint32"));
  } else if (type == "number") {
    ok = value.is_number() || value.is_string();
  } else if (format == "int64" || format == "uint64") {
    ok = value.is_number_integer() || (value.is_string() && IsDigits(value.get<std::string>(), format == "int64"));
  } else {
    ok = value.is_string();
  }
  if (!ok) return InvalidValue(path, ScalarTypeName(spec), value);
  if (auto values = spec.find("enum"); values != spec.end() && value.is_string()) {
    for (const auto& allowed : *values) {
      if (allowed == value) return std::nullopt;
    }
    return Violation{path, "Invalid value" + At(path) + " (enum), " + Quoted(value) + "; expected one of " + [&] {
                       std::string list;
                       for (const auto& allowed : *values) {
                         list += (list.empty() ? "" : ", ") + allowed.get<std::string>();
                       }
                       return list;
                     }()};
  }
  return std::nullopt;
}

}  // namespace

std::string SnakeCase(std::string_view camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

core::Result<SchemaSet> SchemaSet::FromJson(std::string_view text) {
  auto parsed = core::ParseJson(text, "the emulator's discovery subset");
  if (!parsed) return core::Fail(core::Error::Internal(parsed.error().message));
  json data = std::move(*parsed);
  if (!data.contains("apis")) {
    return core::Fail(core::Error::Internal("the emulator's discovery subset is not valid JSON"));
  }
  return SchemaSet(std::move(data));
}

core::Result<SchemaSet> SchemaSet::Builtin() { return FromJson(DiscoverySubsetJson()); }

bool SchemaSet::Has(std::string_view api, std::string_view schema) const {
  auto apis = data_.find("apis");
  auto entry = apis->find(std::string(api));
  return entry != apis->end() && (*entry)["schemas"].contains(std::string(schema));
}

std::optional<Violation> SchemaSet::Validate(std::string_view api, std::string_view schema, const json& body,
                                             std::string_view method_id) const {
  const auto& apis = data_["apis"];
  auto entry = apis.find(std::string(api));
  if (entry == apis.end()) return std::nullopt;
  const auto& schemas = (*entry)["schemas"];
  auto root = schemas.find(std::string(schema));
  if (root == schemas.end()) return std::nullopt;
  Walk walk{schemas, "type.googleapis.com/google." + std::string(api) + "." + entry->value("version", "") + ".",
            method_id};
  return CheckObject(walk, (*root)["properties"], walk.type_prefix + std::string(schema), body, "");
}

}  // namespace tputrain::emulator
