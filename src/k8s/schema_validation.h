#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::k8s {

// One problem with one field of a custom resource.
struct FieldError {
  std::string path;     // "spec.workerGroupSpecs[0].replicas"; map keys and list indexes in [];
                        // empty for the object itself
  std::string problem;  // "expected integer, got string \"two\"", "unknown field", ...

  // "spec.workerGroupSpecs[0].replicas: expected integer, got string \"two\"".
  std::string Line() const;
};

// Fills in the schema's `default` values as the API server does before it validates a custom
// resource: a field that is absent, or null where the schema is not nullable, gets its default,
// and defaults nest (a defaulted object gets its own fields' defaults too).
void ApplySchemaDefaults(nlohmann::json& value, const nlohmann::json& schema);

// Checks a whole custom resource against one version's `openAPIV3Schema`, with the schema's
// defaults applied to a copy; returns one FieldError per problem (keys in sorted order, list
// items in order), none when it fits. Covers the structural-schema subset that decides whether
// the server can read the object at all: type, properties, required, additionalProperties (bool
// or schema), items, enum, nullable, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-int-or-string and x-kubernetes-embedded-resource; the root's `metadata` is only
// checked to be an object. Value constraints (pattern, format, minimum, maxLength, CEL rules)
// are left to the server. Never throws, whatever the object or schema hold.
std::vector<FieldError> ValidateAgainstSchema(const nlohmann::json& object, const nlohmann::json& schema);

// The `openAPIV3Schema` that a CustomResourceDefinition gives `version` ("v1"), or nullptr when
// it has no such version or no schema for it.
const nlohmann::json* SchemaForVersion(const nlohmann::json& crd, const std::string& version);

}  // namespace tputrain::k8s
