#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/render/values.h"

namespace tputrain::render {

// A variable a template declares in its template.yaml. A variable without a default is
// required; a default may reference other variables ("gs://${BUCKET}/tmp").
struct VariableSpec {
  std::string name;
  std::string meaning;
  bool has_default = false;
  std::string default_value;
  ValueType type = ValueType::kString;
};

struct TemplateFile {
  std::string name;  // relative to the template directory, also the output file name
  std::string text;
  bool yaml = false;  // *.yaml / *.yml: checked as Kubernetes objects after rendering
};

// templates/<name>/template.yaml plus the files it lists: a built-in template (compiled into
// tputrain from templates/) or one of a directory of the user's.
struct TemplateSpec {
  std::string name;
  std::string description;  // one line, for --list
  bool builtin = false;
  std::string directory;         // the user's template's directory; empty for a built-in
  std::string default_tpu_type;  // non-empty: TPU_TYPE defaults to this and slice values exist
  int default_slices = 1;
  std::vector<VariableSpec> variables;
  std::vector<TemplateFile> files;

  const VariableSpec* Find(std::string_view variable) const;
  // Names the template in errors: its directory, or "built-in template NAME".
  std::string Where() const;
};

struct TemplateSummary {
  std::string name;
  std::string description;
  std::string directory;   // empty for a built-in
  bool overrides = false;  // a user template hiding a built-in of the same name
};

// Every template under `dirs` (the user's directories, in order), then the built-in ones; an
// earlier directory's template hides a later one's, and any of them a built-in of that name. A
// directory that does not exist is a usage error naming it.
core::Result<std::vector<TemplateSummary>> ListTemplates(const std::vector<std::string>& dirs);
// The named template from the first of `dirs` that has it, else the built-in one; an unknown
// name is a usage error listing the known ones and how to add one.
core::Result<TemplateSpec> LoadTemplate(const std::vector<std::string>& dirs, const std::string& name);
core::Result<TemplateSpec> LoadTemplateDir(const std::string& directory);

}  // namespace tputrain::render
