#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// Prints a command's result on stdout: `json` as JSON or YAML when asked for, otherwise the
// human table that `print_table` writes. The JSON is the stable, documented contract.
void PrintResult(Context& context, const nlohmann::json& json, const std::function<void(std::ostream&)>& print_table);

std::string ToYaml(const nlohmann::json& json);

// For output that has no JSON or YAML form (a server's shell lines, rendered manifests): a usage
// error naming --format and `what` is printed instead, when --format asks for `refused`.
core::Status RefuseFormat(const Context& context, OutputFormat refused, std::string_view what);

// Left-aligned columns separated by two spaces, headers in capitals, as kubectl and gcloud.
void PrintTable(std::ostream& out, const std::vector<std::string>& headers,
                const std::vector<std::vector<std::string>>& rows);

}  // namespace tputrain::cli
