#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/render/template.h"

namespace tputrain::render {

// Values tputrain's own configuration supplies (flags > environment > tputrain.yaml > gcloud),
// under these names; a template reads them like any other value.
const std::vector<std::pair<std::string, std::string>>& ConfigurationNames();

// The environment's directory of templates of the user's own, searched before the built-in ones
// (which are compiled in): $TPUTRAIN_TEMPLATE_DIR when set. One that does not exist is an error
// naming the variable when a template is looked for.
std::vector<std::string> EnvironmentTemplateDirs(const core::Env& env);

struct RenderRequest {
  std::string template_name;
  std::vector<std::string> template_dirs;            // searched in order: user directories first
  std::vector<std::string> sets;                     // "NAME=VALUE", later wins
  std::vector<std::string> values_files;             // YAML mappings, later wins; --set beats them
  std::optional<core::Env> env;                      // --env: the environment, below the files
  std::map<std::string, std::string> configuration;  // PROJECT_ID, LOCATION, ...
  SliceValues slice_values;                          // needed when the template has a TPU_TYPE
};

struct RenderedFile {
  std::string name;
  std::string text;
  bool yaml = false;
};

struct Rendered {
  std::string template_name;
  std::vector<RenderedFile> files;
};

// Strict: every name a file references must have a value (from the request, the slice the TPU
// type fixes, the configuration or the template's default), or the error lists each missing
// name with the lines using it. YAML files must come out as valid Kubernetes objects
// (CheckRenderedYaml).
core::Result<Rendered> RenderTemplate(const RenderRequest& request);

// What goes to stdout: the YAML files as one multi-document stream, or the single file of a
// one-file template. Several non-YAML files need a directory (a usage error naming -o).
core::Result<std::string> ForStdout(const Rendered& rendered);
// Writes every file into `directory` (created if needed); returns the paths written.
core::Result<std::vector<std::string>> WriteRendered(const Rendered& rendered, const std::string& directory);

struct VariableInfo {
  std::string name;
  std::string type;
  std::string origin;  // "required", "default", "computed", "configuration", "input"
  std::string value;   // the default, or the value for the template's default TPU type
  std::string meaning;
  std::vector<std::string> used_in;  // "raycluster.yaml:12"
};

// Every variable the template declares or references, in declaration order, then the rest; the
// computed ones with their values for the template's default TPU type (from `slice_values`).
std::vector<VariableInfo> DescribeTemplate(const TemplateSpec& spec, const SliceValues& slice_values);

}  // namespace tputrain::render
