#include "tputrain/core/json_fields.h"

namespace tputrain::core {
namespace {

const nlohmann::json* Field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

}  // namespace

std::string StringAt(const nlohmann::json& object, std::string_view key) {
  const auto* field = Field(object, key);
  return field != nullptr && field->is_string() ? field->get<std::string>() : std::string();
}

const nlohmann::json& ObjectAt(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const auto* field = Field(object, key);
  return field != nullptr && field->is_object() ? *field : kEmpty;
}

const nlohmann::json& ArrayAt(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const auto* field = Field(object, key);
  return field != nullptr && field->is_array() ? *field : kEmpty;
}

int64_t IntAt(const nlohmann::json& object, std::string_view key, int64_t fallback) {
  const auto* field = Field(object, key);
  return field != nullptr && field->is_number_integer() ? field->get<int64_t>() : fallback;
}

bool BoolAt(const nlohmann::json& object, std::string_view key, bool fallback) {
  const auto* field = Field(object, key);
  return field != nullptr && field->is_boolean() ? field->get<bool>() : fallback;
}

}  // namespace tputrain::core
