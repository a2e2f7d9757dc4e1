#include <memory>

#include "commands/commands.h"
#include "output/output.h"
#include "parse_error.h"
#include "tputrain/workflow/workload_templates.h"

namespace tputrain::cli {
namespace {

// render's flags: the request's, and what to do with it.
struct RenderOptions {
  workflow::WorkloadRenderRequest request;
  std::string output_dir;
  bool list = false;
  bool describe = false;
};

core::Result<int> RunList(const RenderOptions& options, Context& context) {
  auto templates = workflow::ListWorkloadTemplates(context.stack(), options.request.template_dirs);
  if (!templates) return core::Fail(templates.error());
  std::vector<std::vector<std::string>> rows;
  for (const auto& summary : *templates) {
    rows.push_back({summary.name, summary.description + (summary.overrides ? " [user, overrides built-in]" : "")});
  }
  PrintResult(context, workflow::ToJson(*templates), [&](std::ostream& out) {
    PrintTable(out, {"template", "description"}, rows);
  });
  return core::kExitOk;
}

core::Result<int> RunDescribe(const RenderOptions& options, Context& context) {
  auto described =
      workflow::DescribeWorkloadTemplate(context.stack(), options.request.template_dirs, options.request.template_name);
  if (!described) return core::Fail(described.error());
  const auto& spec = described->spec;
  std::vector<std::vector<std::string>> rows;
  for (const auto& info : described->variables) rows.push_back({info.name, info.origin, info.value, info.meaning});
  PrintResult(context, workflow::ToJson(*described), [&](std::ostream& out) {
    out << spec.name << ": " << spec.description << "\nfiles: " << spec.files.size() << " (";
    for (std::size_t i = 0; i < spec.files.size(); ++i) out << (i ? ", " : "") << spec.files[i].name;
    out << ")\n\n";
    PrintTable(out, {"variable", "origin", "value", "meaning"}, rows);
  });
  return core::kExitOk;
}

core::Result<int> RunRender(const RenderOptions& options, Context& context) {
  if (options.list) return RunList(options, context);
  if (options.request.template_name.empty()) {
    return core::Fail(core::Error::Usage("TEMPLATE is required (tputrain render --list shows them)"));
  }
  if (options.describe) return RunDescribe(options, context);
  auto rendered = workflow::RenderWorkloadTemplate(context.stack(), options.request);
  if (!rendered) return core::Fail(rendered.error());
  if (options.output_dir.empty()) {
    // The manifests are YAML already: --format yaml is what is printed; JSON is not offered.
    if (auto refused = RefuseFormat(context, OutputFormat::kJson,
                                    "rendered manifests are YAML; leave out --format (or write files with -o DIR)");
        !refused) {
      return core::Fail(refused.error());
    }
    auto text = workflow::RenderedText(*rendered);
    if (!text) return core::Fail(text.error());
    context.out << *text;
    return core::kExitOk;
  }
  auto written = workflow::WriteRenderedFiles(*rendered, options.output_dir);
  if (!written) return core::Fail(written.error());
  PrintResult(context, {{"files", *written}}, [&](std::ostream& out) {
    for (const auto& path : *written) out << path << "\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupRenderCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<RenderOptions>();
  auto* command = root.add_subcommand("render", "Render a workload template into Kubernetes YAML (or files)");
  command->add_option("TEMPLATE", options->request.template_name, "Template name (see --list)");
  command->add_option("--set", options->request.sets, "NAME=VALUE, repeatable; beats --values and --env")
      ->type_name("NAME=VALUE");
  command->add_option("--values", options->request.values_files, "YAML file of NAME: value, repeatable")
      ->type_name("FILE.yaml");
  command->add_flag("--env", options->request.env, "Also take values from the environment (lowest precedence)");
  command->add_option("-o,--output-dir", options->output_dir, "Write the files into DIR instead of stdout")
      ->type_name("DIR");
  // A directory that is not there (a typo) would silently leave the built-in templates in use.
  command
      ->add_option("--template-dir", options->request.template_dirs,
                   "Directory of templates of your own, searched before TPUTRAIN_TEMPLATE_DIR and the built-in "
                   "ones; repeatable")
      ->check(ExistingDirectory());
  command->add_flag("--list", options->list, "List the templates, one line each");
  command->add_flag("--describe", options->describe, "List TEMPLATE's variables, defaults and meaning");
  command->footer(
      "Every referenced variable needs a value: a missing one is an error naming it and its lines.\n"
      "TPU_TYPE and NUM_SLICES fix TPU_TOPOLOGY, NUM_HOSTS, TPU_CHIPS_PER_HOST, GKE_ACCELERATOR, ...\n"
      "Examples:\n"
      "  tputrain render --list\n"
      "  tputrain render raycluster-maxtext --describe\n"
      "  tputrain render raycluster-maxtext --set KSA_NAME=ray-ksa --set DOCKER_IMAGE=IMAGE \\\n"
      "      --set GS_BUCKET=my-bucket | kubectl apply -f -\n"
      "  tputrain render maxtext-ray-image -o build/ && docker build build/");
  command->callback([options, &context] { context.outcome = RunRender(*options, context); });
}

}  // namespace tputrain::cli
