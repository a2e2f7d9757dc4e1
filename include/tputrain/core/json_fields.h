#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

// Reading fields of what a server sends (the API server, Google APIs, Ray, the engines). Any field may be absent, null
// or of another type than expected: Go serialises a zero time as null (an events.k8s.io Event read as core/v1 has
// "lastTimestamp": null), and nlohmann's value(key, default) throws when the key is there but
// null. These never throw: a field that is not of the asked type reads as the fallback.
namespace tputrain::core {

// The string at `key`; "" when `object` is not an object or the field is absent or not a string.
std::string StringAt(const nlohmann::json& object, std::string_view key);
// The object at `key`; an empty object otherwise.
const nlohmann::json& ObjectAt(const nlohmann::json& object, std::string_view key);
// The array at `key`; an empty array otherwise.
const nlohmann::json& ArrayAt(const nlohmann::json& object, std::string_view key);
// The integer at `key`; `fallback` otherwise.
int64_t IntAt(const nlohmann::json& object, std::string_view key, int64_t fallback);
// The boolean at `key`; `fallback` otherwise.
bool BoolAt(const nlohmann::json& object, std::string_view key, bool fallback);

}  // namespace tputrain::core
