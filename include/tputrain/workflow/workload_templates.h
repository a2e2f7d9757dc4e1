#pragma once

// `tputrain render`: the workload templates (built in, or the user's own directories first),
// one described with the values the catalog computes for its default TPU type, one rendered.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

// `dirs` (--template-dir) are searched before the root's (TPUTRAIN_TEMPLATE_DIR, then the built-in
// templates).
core::Result<std::vector<render::TemplateSummary>> ListWorkloadTemplates(Root& root,
                                                                         const std::vector<std::string>& dirs);

struct WorkloadTemplateDescription {
  render::TemplateSpec spec;
  std::vector<render::VariableInfo> variables;  // the computed ones for the default TPU type's slice
};
core::Result<WorkloadTemplateDescription> DescribeWorkloadTemplate(Root& root, const std::vector<std::string>& dirs,
                                                                   const std::string& name);

// `render --list --format json` and `render --describe TEMPLATE --format json`: a user template's
// directory, null for a built-in one.
nlohmann::json ToJson(const std::vector<render::TemplateSummary>& templates);
nlohmann::json ToJson(const WorkloadTemplateDescription& description);

struct WorkloadRenderRequest {
  std::string template_name;
  std::vector<std::string> template_dirs;  // --template-dir, searched before the root's
  std::vector<std::string> sets;           // NAME=VALUE, later wins
  std::vector<std::string> values_files;   // YAML mappings; --set beats them
  bool env = false;                        // --env: the environment's values, below the files
};

// Renders strictly (every name must have a value) with the slice values the TPU type fixes and
// the configuration's (PROJECT_ID, LOCATION, ... under the templates' names).
core::Result<render::Rendered> RenderWorkloadTemplate(Root& root, const WorkloadRenderRequest& request);
// What goes to stdout: the YAML files as one stream, or a one-file template's file (several
// non-YAML files need a directory: a usage error naming -o).
core::Result<std::string> RenderedText(const render::Rendered& rendered);
// Every file written into `directory` (created if needed); the paths written.
core::Result<std::vector<std::string>> WriteRenderedFiles(const render::Rendered& rendered,
                                                          const std::string& directory);

}  // namespace tputrain::workflow
