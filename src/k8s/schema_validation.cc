#include "schema_validation.h"

#include <cmath>

#include "tputrain/core/utf8.h"

namespace tputrain::k8s {
namespace {

using Json = nlohmann::json;

// Schemas come from the cluster, so nothing about their shape is assumed: a keyword that is
// missing or of an unexpected kind is as if it were absent.
const Json* Member(const Json* object, const std::string& name) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(name);
  return it == object->end() ? nullptr : &*it;
}

const Json* Keyword(const Json& schema, const char* name) { return Member(&schema, name); }

bool Flag(const Json& schema, const char* name) {
  const Json* value = Keyword(schema, name);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

const Json* ObjectKeyword(const Json& schema, const char* name) {
  const Json* value = Keyword(schema, name);
  return value != nullptr && value->is_object() ? value : nullptr;
}

// The value as JSON, cut short: enough to recognise it in a one-line message. The replacing
// error handler keeps dump() from throwing on a string that is not valid UTF-8.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  constexpr std::size_t kMax = 60;
  return text.size() > kMax ? core::Utf8Excerpt(text, kMax - 3, "...") : text;
}

std::string Describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean " + Shown(value);
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer " + Shown(value);
    case Json::value_t::number_float:
      return "number " + Shown(value);
    case Json::value_t::string:
      return "string " + Shown(value);
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "a value of no JSON type";  // binary or discarded: never parsed from a manifest
  }
}

// The API server's JSON decoder reads 2.0 as a float, and its validator accepts a float with no
// fraction where an integer is expected; so does this.
bool IsInteger(const Json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  double number = value.get<double>();
  return std::isfinite(number) && std::trunc(number) == number;
}

bool HasType(const Json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "number") return value.is_number();
  if (type == "integer") return IsInteger(value);
  return true;  // a type outside the structural subset: the server decides
}

std::string ListOf(const Json& options) {
  constexpr std::size_t kMaxShown = 12;
  std::string text = "[";
  for (std::size_t i = 0; i < options.size() && i < kMaxShown; ++i) {
    if (i > 0) text += ", ";
    text += Shown(options[i]);
  }
  if (options.size() > kMaxShown) text += ", ...";
  return text + "]";
}

// Field paths as the API server writes them: properties after a dot, map keys and list indexes
// in brackets.
std::string Child(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }
std::string Key(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }

// A schema with neither a type nor fields says nothing about an object's fields (only
// x-kubernetes-preserve-unknown-fields nodes are like that in a structural schema).
bool DescribesObject(const Json& schema) {
  const Json* type = Keyword(schema, "type");
  return (type != nullptr && *type == "object") || ObjectKeyword(schema, "properties") != nullptr ||
         Keyword(schema, "additionalProperties") != nullptr;
}

class Validator {
 public:
  // A whole resource: the root, or an object marked x-kubernetes-embedded-resource.
  void CheckResource(const Json& object, const Json& schema, const std::string& path) {
    if (!object.is_object()) {
      Add(path, "expected object, got " + Describe(object));
      return;
    }
    CheckObject(object, schema, path, /*resource=*/true);
  }

  void Check(const Json& value, const Json& schema, const std::string& path) {
    if (!schema.is_object()) return;
    if (value.is_null()) {
      // Null object fields were pruned with the defaults; a null list item is checked here.
      if (!Flag(schema, "nullable")) CheckNull(schema, path);
      return;
    }
    if (Flag(schema, "x-kubernetes-int-or-string")) {
      // Its anyOf only repeats "integer or string"; nothing else in it concerns the type.
      if (!value.is_string() && !IsInteger(value)) Add(path, "expected integer or string, got " + Describe(value));
      return;
    }
    const Json* type = Keyword(schema, "type");
    if (type != nullptr && type->is_string() && !HasType(value, type->get_ref<const std::string&>())) {
      Add(path, "expected " + type->get_ref<const std::string&>() + ", got " + Describe(value));
      return;
    }
    if (const Json* options = Keyword(schema, "enum"); options != nullptr && options->is_array() && !options->empty()) {
      bool listed = false;
      for (const auto& option : *options) listed = listed || option == value;
      if (!listed) {
        Add(path, "expected one of " + ListOf(*options) + ", got " + Shown(value));
        return;
      }
    }
    if (value.is_object() && Flag(schema, "x-kubernetes-embedded-resource")) {
      CheckResource(value, schema, path);
    } else if (value.is_object() && DescribesObject(schema)) {
      CheckObject(value, schema, path, /*resource=*/false);
    } else if (value.is_array()) {
      CheckItems(value, schema, path);
    }
  }

  std::vector<FieldError> Take() { return std::move(errors_); }

 private:
  void Add(const std::string& path, std::string problem) { errors_.push_back({path, std::move(problem)}); }

  void CheckNull(const Json& schema, const std::string& path) {
    const Json* type = Keyword(schema, "type");
    if (Flag(schema, "x-kubernetes-int-or-string")) {
      Add(path, "expected integer or string, got null");
    } else if (type != nullptr && type->is_string()) {
      Add(path, "expected " + type->get_ref<const std::string&>() + ", got null");
    }
  }

  // A resource (`resource`) may carry apiVersion, kind and metadata whether its schema lists
  // them or not; the API server checks metadata itself, as ObjectMeta, so here it only has to be
  // an object.
  void CheckObject(const Json& object, const Json& schema, const std::string& path, bool resource) {
    CheckRequired(object, schema, path);
    const Json* properties = ObjectKeyword(schema, "properties");
    const Json* additional = Keyword(schema, "additionalProperties");
    // Unknown fields are kept at this node only: a listed property's own schema decides for the
    // fields below it, as the server prunes.
    bool open = Flag(schema, "x-kubernetes-preserve-unknown-fields") ||
                (additional != nullptr && additional->is_boolean() && additional->get<bool>());
    for (auto it = object.begin(); it != object.end(); ++it) {
      const std::string& name = it.key();
      std::string child = Child(path, name);
      if (resource && name == "metadata") {
        if (!it->is_object()) Add(child, "expected object, got " + Describe(*it));
        continue;
      }
      if (const Json* property = Member(properties, name)) {
        Check(*it, *property, child);
      } else if (resource && (name == "apiVersion" || name == "kind")) {
        if (!it->is_string()) Add(child, "expected string, got " + Describe(*it));
      } else if (additional != nullptr && additional->is_object()) {
        Check(*it, *additional, Key(path, name));
      } else if (!open) {
        Add(child, "unknown field");
      }
    }
  }

  void CheckRequired(const Json& object, const Json& schema, const std::string& path) {
    const Json* required = Keyword(schema, "required");
    if (required == nullptr || !required->is_array()) return;
    for (const auto& name : *required) {
      if (!name.is_string() || object.contains(name.get_ref<const std::string&>())) continue;
      Add(path, "required field \"" + name.get_ref<const std::string&>() + "\" missing");
    }
  }

  void CheckItems(const Json& list, const Json& schema, const std::string& path) {
    const Json* items = ObjectKeyword(schema, "items");
    if (items == nullptr) return;
    for (std::size_t i = 0; i < list.size(); ++i) Check(list[i], *items, Key(path, std::to_string(i)));
  }

  std::vector<FieldError> errors_;
};

// The API server prunes a null field unless its schema is nullable, then defaults it.
void DefaultField(Json& object, const std::string& name, const Json& schema) {
  auto it = object.find(name);
  if (it != object.end() && it->is_null() && !Flag(schema, "nullable")) {
    object.erase(it);
    it = object.end();
  }
  if (it == object.end()) {
    const Json* fallback = Keyword(schema, "default");
    if (fallback == nullptr) return;
    it = object.emplace(name, *fallback).first;
  }
  ApplySchemaDefaults(*it, schema);
}

}  // namespace

std::string FieldError::Line() const { return path.empty() ? problem : path + ": " + problem; }

void ApplySchemaDefaults(Json& value, const Json& schema) {
  if (value.is_array()) {
    if (const Json* items = ObjectKeyword(schema, "items")) {
      for (auto& item : value) ApplySchemaDefaults(item, *items);
    }
    return;
  }
  if (!value.is_object()) return;
  if (const Json* properties = ObjectKeyword(schema, "properties")) {
    for (const auto& property : properties->items()) DefaultField(value, property.key(), property.value());
  }
  if (const Json* additional = ObjectKeyword(schema, "additionalProperties")) {
    std::vector<std::string> keys;
    for (const auto& entry : value.items()) keys.push_back(entry.key());
    for (const auto& key : keys) DefaultField(value, key, *additional);
  }
}

std::vector<FieldError> ValidateAgainstSchema(const Json& object, const Json& schema) {
  Json defaulted = object;
  ApplySchemaDefaults(defaulted, schema);
  Validator validator;
  validator.CheckResource(defaulted, schema, "");
  return validator.Take();
}

const Json* SchemaForVersion(const Json& crd, const std::string& version) {
  const Json* spec = ObjectKeyword(crd, "spec");
  const Json* versions = spec != nullptr ? Keyword(*spec, "versions") : nullptr;
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const auto& entry : *versions) {
    const Json* name = Keyword(entry, "name");
    if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>() != version) continue;
    const Json* schema = ObjectKeyword(entry, "schema");
    return schema != nullptr ? ObjectKeyword(*schema, "openAPIV3Schema") : nullptr;
  }
  return nullptr;
}

}  // namespace tputrain::k8s
