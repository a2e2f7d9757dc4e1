#include "field_rules.h"

#include <regex>

#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {

using nlohmann::json;

std::optional<std::string> LabelProblem(const json& labels) {
  if (labels.is_null()) return std::nullopt;
  if (!labels.is_object()) return "labels must be a map of strings";
  if (labels.size() > 64) return "at most 64 labels are allowed, got " + std::to_string(labels.size());
  static const std::regex kKey("^[a-z][a-z0-9_-]{0,62}$");
  static const std::regex kValue("^[a-z0-9_-]{0,63}$");
  for (const auto& [key, value] : labels.items()) {
    if (!std::regex_match(key, kKey)) return "label key '" + key + "' violates the label key format";
    if (!value.is_string() || !std::regex_match(value.get<std::string>(), kValue)) {
      return "label value of '" + key + "' violates the label value format";
    }
  }
  return std::nullopt;
}

std::optional<std::string> NodeCountProblem(const json& count) {
  if (count.is_null()) return std::nullopt;
  int64_t value = 0;
  if (count.is_number_integer()) {
    value = count.get<int64_t>();
  } else if (count.is_string()) {
    // int64 fields travel as JSON strings too; only digits with an optional sign read as one.
    static const std::regex kInt("^-?[0-9]{1,18}$");
    if (!std::regex_match(count.get<std::string>(), kInt)) return "must be an integer, got " + count.dump();
    value = std::stoll(count.get<std::string>());
  } else {
    return "must be an integer, got " + count.dump();
  }
  if (value < 0) return "must be greater than or equal to zero, got " + std::to_string(value);
  return std::nullopt;
}

std::optional<std::string> ReservedBucketNameProblem(const std::string& name) {
  static const std::regex kIpv4("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$");
  if (name.rfind("goog", 0) == 0) return "bucket names cannot begin with the \"goog\" prefix";
  if (name.find("google") != std::string::npos) return "bucket names cannot contain \"google\"";
  if (std::regex_match(name, kIpv4)) return "bucket names cannot be represented as an IP address";
  return std::nullopt;
}

std::optional<std::string> BindingsProblem(const json& bindings) {
  if (bindings.is_null()) return std::nullopt;
  if (!bindings.is_array()) return "bindings must be a list";
  static const std::regex kRole("^(roles|(projects|organizations)/[^/]+/roles)/[A-Za-z0-9_.]{1,64}$");
  for (const auto& binding : bindings) {
    std::string role = binding.is_object() ? binding.value("role", "") : "";
    if (!MatchesBounded(role, kRole)) return "Role (" + role + ") does not exist in the resource's hierarchy";
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
