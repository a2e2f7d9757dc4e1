#pragma once

// A JSON Schema (2020-12) subset, enough for the stack file's: type, properties, required,
// additionalProperties, items, enum, minProperties and local $ref (private to the workflow module).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::workflow::internal {

struct SchemaProblem {
  std::string path;     // "cluster.nodepools[0].num-nodes", as LocatedJson keys it; "" for the root
  std::string problem;  // "expected an integer, got 'three'"
};

// Every problem of `value` against `schema` (whose $ref point into `root`), in the order met.
std::vector<SchemaProblem> CheckSchema(const nlohmann::json& value, const nlohmann::json& schema,
                                       const nlohmann::json& root);

}  // namespace tputrain::workflow::internal
