#pragma once

// `tputrain render`: the workload templates (built in, or the user's own directories first),
// one described with the values the catalog computes for its default TPU type, one rendered.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/config/settings.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/render/render.h"

namespace tputrain::workflow {

core::Result<std::vector<render::TemplateSummary>> ListWorkloadTemplates(const std::vector<std::string>& dirs);

struct WorkloadTemplateDescription {
  render::TemplateSpec spec;
  std::vector<render::VariableInfo> variables;  // the computed ones for the default TPU type's slice
};
core::Result<WorkloadTemplateDescription> DescribeWorkloadTemplate(const std::vector<std::string>& dirs,
                                                                   const std::string& name);

// `render --list --format json` and `render --describe TEMPLATE --format json`: a user template's
// directory, null for a built-in one.
nlohmann::json ToJson(const std::vector<render::TemplateSummary>& templates);
nlohmann::json ToJson(const WorkloadTemplateDescription& description);

struct WorkloadRenderRequest {
  std::string template_name;
  std::vector<std::string> template_dirs;  // searched in order: user directories first
  std::vector<std::string> sets;           // NAME=VALUE, later wins
  std::vector<std::string> values_files;   // YAML mappings; --set beats them
  std::optional<core::Env> env;            // --env: the environment, below the files
  config::Settings settings;               // PROJECT_ID, LOCATION, ... under the templates' names
};

// Renders strictly (every name must have a value) with the slice values the TPU type fixes.
core::Result<render::Rendered> RenderWorkloadTemplate(const WorkloadRenderRequest& request);
// What goes to stdout: the YAML files as one stream, or a one-file template's file (several
// non-YAML files need a directory: a usage error naming -o).
core::Result<std::string> RenderedText(const render::Rendered& rendered);
// Every file written into `directory` (created if needed); the paths written.
core::Result<std::vector<std::string>> WriteRenderedFiles(const render::Rendered& rendered,
                                                          const std::string& directory);

}  // namespace tputrain::workflow
