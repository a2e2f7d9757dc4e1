// tputrain serve up --engine vllm: the vLLM template for the model's slice, rendered. --dry-run
// prints the objects; applying them is not wired yet.
#include "tputrain/workflow/serve_vllm.h"
#include "commands/serve_flags.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/file.h"

namespace tputrain::cli {

core::Result<serving::EngineKind> ServeEngineOf(const std::string& engine, const std::string& model) {
  if (engine.empty()) {
    auto saxml = IsSaxml(engine, model);
    if (!saxml) return core::Fail(saxml.error());
    return *saxml ? serving::EngineKind::kSaxml : serving::EngineKind::kJetStream;
  }
  return serving::ParseEngine("--engine", engine);
}

void AddEngineFlags(CLI::App& up, UpFlags& flags) {
  up.add_option("--engine", flags.engine, "jetstream, saxml or vllm (default: the model's)");
  up.add_option("--hf-token-file", flags.hf_token_file,
                "vLLM: a file holding a Hugging Face token, for gated models; it becomes a Secret, never printed");
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
  if (!flags.hf_token_file.empty()) {
    auto text = core::ReadFile(flags.hf_token_file, "--hf-token-file", 4096);
    if (!text) return core::Fail(text.error());
    auto secret = workflow::HfTokenSecret("--hf-token-file", plan->hf_token_secret, *text);
    if (!secret) return core::Fail(secret.error());
    rendered->objects.insert(rendered->objects.begin(), std::move(*secret));  // before the pods that read it
  }
  if (!context.global.dry_run) {
    return core::Fail(
        core::Error::Usage("--dry-run: serve up --engine vllm only renders so far (it prints the objects)"));
  }
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& object : rendered->objects) objects.push_back(workflow::Shown(object));
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
    for (const auto& object : rendered->objects) out << "---\n" << ToYaml(workflow::Shown(object));
  });
  return core::kExitOk;
}

}  // namespace tputrain::cli
