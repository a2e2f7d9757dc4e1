#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::render {

// What a variable's value must look like, and what YAML must read it as where a template
// leaves it unquoted.
enum class ValueType { kString, kInt, kBool };

std::string_view TypeName(ValueType type);
core::Result<ValueType> ParseTypeName(std::string_view name);
// A usage error naming `name` and `origin` ("--set") when `value` is not of `type`.
core::Status CheckValueType(const std::string& name, const std::string& value, ValueType type, std::string_view origin);

// A value the TPU slice fixes (TPU_TYPE × NUM_SLICES). Templates may read these but callers may
// not set them: a topology that disagrees with the TPU type is exactly the mistake to prevent.
struct ComputedValue {
  std::string name;
  std::string value;
  ValueType type = ValueType::kString;
  std::string meaning;
};

// The names a slice fixes, with their meaning (for --describe and error messages).
const std::vector<std::pair<std::string, std::string>>& ComputedNames();
bool IsComputed(std::string_view name);
// The meaning ComputedNames gives `name`, or "" for a name it does not list.
std::string ComputedMeaning(std::string_view name);

// The values of ComputedNames for `slices` slices of `tpu_type` (v6e-16, v5litepod-32, v6e-4x4),
// or an error whose message says why the TPU type is unknown. The renderer knows no TPU catalog:
// callers pass workflow::SliceTemplateValues.
using SliceValues = std::function<core::Result<std::vector<ComputedValue>>(const std::string& tpu_type, int slices)>;

// "NAME=VALUE" from `flag` ("--set"); the value may be empty and may contain '='.
core::Result<std::pair<std::string, std::string>> ParseAssignment(std::string_view text, std::string_view flag);
bool IsValidName(std::string_view name);

// A flat YAML mapping of NAME: scalar. Nested maps and lists are a usage error naming the key.
core::Result<std::map<std::string, std::string>> LoadValuesFile(const std::string& path);
core::Result<std::map<std::string, std::string>> ParseValuesYaml(const std::string& text, const std::string& origin);

}  // namespace tputrain::render
