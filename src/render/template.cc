#include "tputrain/render/template.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "builtin_templates.h"
#include "tputrain/core/file.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::render {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSpecFile = "template.yaml";

// A template's spec and manifests are a few KiB each; the path says which one failed.
core::Result<std::string> ReadTemplateFile(const fs::path& path) {
  return core::ReadFile(path.string(), "", core::kMiB);
}

bool IsYamlName(const std::string& name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

core::Error SpecError(const fs::path& spec, const std::string& what) {
  return core::Error::Usage(spec.string() + ": " + what);
}

core::Result<VariableSpec> ParseVariable(const fs::path& spec, const std::string& name, const YAML::Node& node) {
  VariableSpec variable;
  variable.name = name;
  if (!IsValidName(name)) return core::Fail(SpecError(spec, "'" + name + "' is not a variable name"));
  if (IsComputed(name)) {
    return core::Fail(SpecError(spec, name + " is computed from TPU_TYPE and cannot be declared"));
  }
  if (!node.IsMap()) return core::Fail(SpecError(spec, name + ": expected a mapping with description/default/type"));
  if (node["description"]) variable.meaning = node["description"].Scalar();
  if (node["default"]) {
    if (!node["default"].IsScalar() && !node["default"].IsNull()) {
      return core::Fail(SpecError(spec, name + ".default: expected a single value"));
    }
    variable.has_default = true;
    variable.default_value = node["default"].IsNull() ? "" : node["default"].Scalar();
  }
  if (node["type"]) {
    auto type = ParseTypeName(node["type"].Scalar());
    if (!type) return core::Fail(SpecError(spec, name + ".type: " + type.error().message));
    variable.type = *type;
  }
  return variable;
}

}  // namespace

const VariableSpec* TemplateSpec::Find(std::string_view variable) const {
  for (const auto& spec : variables) {
    if (spec.name == variable) return &spec;
  }
  return nullptr;
}

namespace {

// One of a template's files, by its name in the template ("template.yaml", "raycluster.yaml").
using ReadPart = std::function<core::Result<std::string>(const std::string& file_name)>;

// A template from its parts, wherever they are kept: `where` names it in errors (its directory,
// or the built-in template's name).
core::Result<TemplateSpec> ParseTemplate(const std::string& name, const fs::path& where, const ReadPart& read) {
  const fs::path spec_path = where / kSpecFile;
  auto text = read(kSpecFile);
  if (!text) return core::Fail(text.error());
  TemplateSpec spec;
  spec.name = name;
  auto loaded = yaml::Load(*text, spec_path.string());
  if (!loaded) return core::Fail(loaded.error());
  try {
    const YAML::Node& root = *loaded;
    if (!root.IsMap()) return core::Fail(SpecError(spec_path, "expected a mapping"));
    if (root["description"]) spec.description = root["description"].Scalar();
    if (root["tpu_type"]) spec.default_tpu_type = root["tpu_type"].Scalar();
    if (root["slices"]) spec.default_slices = root["slices"].as<int>();
    if (root["variables"]) {
      if (!root["variables"].IsMap()) return core::Fail(SpecError(spec_path, "variables: expected a mapping"));
      for (const auto& entry : root["variables"]) {
        auto variable = ParseVariable(spec_path, entry.first.Scalar(), entry.second);
        if (!variable) return core::Fail(variable.error());
        spec.variables.push_back(std::move(*variable));
      }
    }
    if (!root["files"] || !root["files"].IsSequence() || root["files"].size() == 0) {
      return core::Fail(SpecError(spec_path, "files: expected a list of the files to render"));
    }
    for (const auto& entry : root["files"]) {
      const std::string file_name = entry.Scalar();
      if (file_name.empty() || file_name.find('/') != std::string::npos || file_name[0] == '.') {
        return core::Fail(
            SpecError(spec_path, "files: '" + file_name + "' must be a plain file name in the template directory"));
      }
      auto body = read(file_name);
      if (!body) return core::Fail(body.error());
      spec.files.push_back({file_name, std::move(*body), IsYamlName(file_name)});
    }
  } catch (const YAML::Exception& e) {
    return core::Fail(SpecError(spec_path, std::string("not valid: ") + e.what()));
  }
  return spec;
}

const BuiltinTemplateFile* FindBuiltinFile(std::string_view template_name, std::string_view file_name) {
  for (const auto& file : BuiltinTemplateFiles()) {
    if (file.template_name == template_name && file.file_name == file_name) return &file;
  }
  return nullptr;
}

// The built-in templates' names, in order, each once.
std::vector<std::string> BuiltinTemplateNames() {
  std::vector<std::string> names;
  for (const auto& file : BuiltinTemplateFiles()) {
    if (names.empty() || names.back() != file.template_name) names.emplace_back(file.template_name);
  }
  return names;
}

core::Result<TemplateSpec> LoadBuiltinTemplate(const std::string& name) {
  auto spec = ParseTemplate(name, fs::path("built-in template") / name, [&name](const std::string& file_name) {
    const auto* file = FindBuiltinFile(name, file_name);
    if (file == nullptr) {
      return core::Result<std::string>(
          core::Fail(core::Error::Internal("built-in template " + name + " has no file " + file_name)));
    }
    return core::Result<std::string>(std::string(file->text));
  });
  if (spec) spec->builtin = true;
  return spec;
}

// A directory of the user's templates must be there: a typo would quietly mean the built-ins.
// --template-dir is checked as it is parsed, so what is left is the environment's.
core::Status CheckDirectories(const std::vector<std::string>& dirs) {
  for (const auto& directory : dirs) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      return core::Fail(core::Error::Usage(
          "TPUTRAIN_TEMPLATE_DIR or --template-dir: expected an existing directory, got '" + directory + "'"));
    }
  }
  return {};
}

}  // namespace

std::string TemplateSpec::Where() const { return builtin ? "built-in template " + name : directory; }

core::Result<TemplateSpec> LoadTemplateDir(const std::string& directory) {
  const fs::path dir(directory);
  auto spec = ParseTemplate(dir.filename().string(), dir,
                            [&dir](const std::string& file_name) { return ReadTemplateFile(dir / file_name); });
  if (spec) spec->directory = directory;
  return spec;
}

core::Result<std::vector<TemplateSummary>> ListTemplates(const std::vector<std::string>& dirs) {
  if (auto checked = CheckDirectories(dirs); !checked) return core::Fail(checked.error());
  std::vector<TemplateSummary> found;
  std::set<std::string> seen;
  for (const auto& directory : dirs) {
    std::error_code error;
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(directory, error)) {
      if (entry.is_directory() && fs::exists(entry.path() / kSpecFile)) entries.push_back(entry.path());
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& path : entries) {
      const std::string name = path.filename().string();
      if (seen.count(name)) continue;  // an earlier directory's template of that name comes first
      auto spec = LoadTemplateDir(path.string());
      if (!spec) return core::Fail(spec.error());
      seen.insert(name);
      found.push_back({name, spec->description, path.string(), false});
    }
  }
  for (const auto& name : BuiltinTemplateNames()) {
    if (seen.count(name)) {
      for (auto& earlier : found) {
        if (earlier.name == name) earlier.overrides = true;
      }
      continue;
    }
    auto spec = LoadBuiltinTemplate(name);
    if (!spec) return core::Fail(spec.error());
    found.push_back({name, spec->description, "", false});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return found;
}

core::Result<TemplateSpec> LoadTemplate(const std::vector<std::string>& dirs, const std::string& name) {
  const bool plain =
      !name.empty() && name[0] != '.' &&
      name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") == std::string::npos;
  if (!plain) {
    return core::Fail(
        core::Error::Usage("TEMPLATE '" + name + "': expected a template name such as raycluster-maxtext"));
  }
  if (auto checked = CheckDirectories(dirs); !checked) return core::Fail(checked.error());
  for (const auto& directory : dirs) {
    const fs::path candidate = fs::path(directory) / name;
    std::error_code error;
    if (fs::exists(candidate / kSpecFile, error)) return LoadTemplateDir(candidate.string());
  }
  if (FindBuiltinFile(name, kSpecFile) != nullptr) return LoadBuiltinTemplate(name);
  auto known = ListTemplates(dirs);
  std::string names;
  if (known) {
    for (const auto& summary : *known) names += (names.empty() ? "" : ", ") + summary.name;
  }
  return core::Fail(core::Error::Usage("unknown template '" + name + "'; known templates: " + names +
                                       " (tputrain render --list; templates of your own: --template-dir DIR or "
                                       "TPUTRAIN_TEMPLATE_DIR)"));
}

}  // namespace tputrain::render
