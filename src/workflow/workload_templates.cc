#include "tputrain/workflow/workload_templates.h"

#include "tputrain/workflow/template_values.h"

namespace tputrain::workflow {

core::Result<std::vector<render::TemplateSummary>> ListWorkloadTemplates(const std::vector<std::string>& dirs) {
  return render::ListTemplates(dirs);
}

core::Result<WorkloadTemplateDescription> DescribeWorkloadTemplate(const std::vector<std::string>& dirs,
                                                                   const std::string& name) {
  auto spec = render::LoadTemplate(dirs, name);
  if (!spec) return core::Fail(spec.error());
  auto variables = render::DescribeTemplate(*spec, SliceTemplateValues);
  return WorkloadTemplateDescription{std::move(*spec), std::move(variables)};
}

core::Result<render::Rendered> RenderWorkloadTemplate(const WorkloadRenderRequest& request) {
  render::RenderRequest render;
  render.template_name = request.template_name;
  render.template_dirs = request.template_dirs;
  render.sets = request.sets;
  render.values_files = request.values_files;
  render.slice_values = SliceTemplateValues;
  render.env = request.env;
  render.configuration = ConfigurationValues(request.settings);
  return render::RenderTemplate(render);
}

core::Result<std::string> RenderedText(const render::Rendered& rendered) { return render::ForStdout(rendered); }

core::Result<std::vector<std::string>> WriteRenderedFiles(const render::Rendered& rendered,
                                                          const std::string& directory) {
  return render::WriteRendered(rendered, directory);
}

}  // namespace tputrain::workflow
