#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "substitute.h"
#include "tputrain/core/result.h"
#include "tputrain/render/values.h"

namespace tputrain::render {

// How Kubernetes (sigs.k8s.io/yaml, YAML 1.1 resolution) reads a plain, unquoted scalar.
enum class PlainKind { kString, kNull, kBool, kInt, kFloat };
PlainKind ResolvePlain(std::string_view scalar);
std::string_view PlainKindName(PlainKind kind);

// Checks a rendered YAML file: every document parses, is a mapping with apiVersion, kind and
// metadata.name, has no duplicate keys, and has the same shape as the template rendered with
// inert placeholders — so no value added, removed or re-nested anything (a quote or newline in a
// value). A value that lands in a plain scalar must keep the type the template meant: "4",
// "true", "on" or "0755" for a string variable would be retyped by YAML, and an int variable
// must read as an integer. Errors name the file, line, variable and value.
core::Status CheckRenderedYaml(std::string_view file, const Substituted& rendered,
                               const std::function<ValueType(const std::string&)>& type_of);

}  // namespace tputrain::render
