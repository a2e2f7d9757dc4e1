// tputrain serve up --engine vllm: the vLLM template for the model's slice, rendered. --dry-run
// prints the objects; applying them is not wired yet.
#include "tputrain/workflow/serve_vllm.h"
#include "commands/serve_flags.h"
#include "tputrain/cli/output.h"

namespace tputrain::cli {

core::Result<serving::EngineKind> ServeEngineOf(const std::string& engine, const std::string& model) {
  if (engine.empty()) {
    auto saxml = IsSaxml(engine, model);
    if (!saxml) return core::Fail(saxml.error());
    return *saxml ? serving::EngineKind::kSaxml : serving::EngineKind::kJetStream;
  }
  return serving::ParseEngine("--engine", engine);
}

core::Result<int> RunEngineUp(serving::EngineKind engine, const UpFlags& flags, Context& context) {
  return engine == serving::EngineKind::kVllm ? RunVllmUp(flags, context) : RunSaxmlUp(flags, context);
}

core::Result<int> RunVllmUp(const UpFlags& flags, Context& context) {
  for (const auto& [given, flag] :
       {std::pair{flags.disaggregated, "--disaggregated"}, std::pair{!flags.replicas.empty(), "--replicas"},
        std::pair{!flags.model_path.empty(), "--model-path"}, std::pair{!flags.sax_model.empty(), "--sax-model"},
        std::pair{!flags.checkpoint.empty(), "--checkpoint"},
        std::pair{!flags.jobset_manifest.empty(), "--jobset-manifest"}}) {
    if (given) return core::Fail(core::Error::Usage(std::string(flag) + ": not for --engine vllm"));
  }
  workflow::VllmPlanRequest request{flags.model, flags.tpu_type, flags.sets, {}, context.stack().BuiltinTemplateDirs()};
  auto plan = workflow::PlanVllm(request);
  if (!plan) return core::Fail(plan.error());
  auto rendered = workflow::RenderVllm(*plan, request);
  if (!rendered) return core::Fail(rendered.error());
  if (!context.global.dry_run) {
    return core::Fail(
        core::Error::Usage("--dry-run: serve up --engine vllm only renders so far (it prints the objects)"));
  }
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& object : rendered->objects) objects.push_back(object.json);
  nlohmann::json json = {{"engine", "vllm"},
                         {"model", plan->model},
                         {"tpu_type", plan->tpu_type},
                         {"template", plan->template_name},
                         {"hosts", plan->hosts},
                         {"workload", rendered->workload_kind + "/" + rendered->workload},
                         {"service", rendered->service},
                         {"objects", objects},
                         {"dry_run", true}};
  PrintResult(context, json, [&](std::ostream& out) {
    out << "# " << plan->model << " on " << plan->tpu_type << " (" << plan->template_name << ", " << plan->hosts
        << (plan->hosts == 1 ? " host" : " hosts") << "): nothing applied\n";
    for (const auto& object : rendered->objects) out << "---\n" << ToYaml(object.json);
  });
  return core::kExitOk;
}

}  // namespace tputrain::cli
