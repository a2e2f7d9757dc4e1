#include "tputrain/workflow/workload_templates.h"

#include "template_values.h"

namespace tputrain::workflow {
namespace {

std::vector<std::string> SearchedDirs(const Root& root, std::vector<std::string> dirs) {
  for (auto& dir : root.TemplateDirs()) dirs.push_back(std::move(dir));
  return dirs;
}

}  // namespace

core::Result<std::vector<render::TemplateSummary>> ListWorkloadTemplates(Root& root,
                                                                         const std::vector<std::string>& dirs) {
  return render::ListTemplates(SearchedDirs(root, dirs));
}

core::Result<WorkloadTemplateDescription> DescribeWorkloadTemplate(Root& root, const std::vector<std::string>& dirs,
                                                                   const std::string& name) {
  auto spec = render::LoadTemplate(SearchedDirs(root, dirs), name);
  if (!spec) return core::Fail(spec.error());
  auto variables = render::DescribeTemplate(*spec, SliceTemplateValues);
  return WorkloadTemplateDescription{std::move(*spec), std::move(variables)};
}

core::Result<render::Rendered> RenderWorkloadTemplate(Root& root, const WorkloadRenderRequest& request) {
  render::RenderRequest render;
  render.template_name = request.template_name;
  render.template_dirs = SearchedDirs(root, request.template_dirs);
  render.sets = request.sets;
  render.values_files = request.values_files;
  render.slice_values = SliceTemplateValues;
  if (request.env) render.env = root.env();
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  render.configuration = ConfigurationValues(*settings);
  return render::RenderTemplate(render);
}

core::Result<std::string> RenderedText(const render::Rendered& rendered) { return render::ForStdout(rendered); }

core::Result<std::vector<std::string>> WriteRenderedFiles(const render::Rendered& rendered,
                                                          const std::string& directory) {
  return render::WriteRendered(rendered, directory);
}

nlohmann::json ToJson(const std::vector<render::TemplateSummary>& templates) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& summary : templates) {
    const bool builtin = summary.directory.empty();
    json.push_back({{"name", summary.name},
                    {"description", summary.description},
                    {"builtin", builtin},
                    {"directory", builtin ? nlohmann::json(nullptr) : nlohmann::json(summary.directory)},
                    {"overrides_builtin", summary.overrides}});
  }
  return json;
}

nlohmann::json ToJson(const WorkloadTemplateDescription& description) {
  const auto& spec = description.spec;
  nlohmann::json variables = nlohmann::json::array();
  for (const auto& info : description.variables) {
    variables.push_back({{"name", info.name},
                         {"type", info.type},
                         {"origin", info.origin},
                         {"value", info.value},
                         {"meaning", info.meaning},
                         {"used_in", info.used_in}});
  }
  nlohmann::json files = nlohmann::json::array();
  for (const auto& file : spec.files) files.push_back(file.name);
  return {
      {"name", spec.name},       {"description", spec.description},
      {"builtin", spec.builtin}, {"directory", spec.builtin ? nlohmann::json(nullptr) : nlohmann::json(spec.directory)},
      {"files", files},          {"variables", variables}};
}

}  // namespace tputrain::workflow
