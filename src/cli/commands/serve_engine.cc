// tputrain serve up|down: which engine a command is for, the cluster side every engine's up
// needs, and what every engine's down prints.
#include <algorithm>

#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/workflow/names.h"
#include "tputrain/workflow/serve_env.h"
#include "tputrain/workflow/tpu_type.h"

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
  up.add_option("--hf-config", flags.hf_config,
                "vLLM: the checkpoint's config.json, to size the slice when --tpu-type is not given")
      ->type_name("FILE");
}

namespace {

using serving::EngineKind;

// A flag that only `engines` take, and whether the command line gave it.
struct EngineFlag {
  const char* name;
  bool given;
  std::vector<EngineKind> engines;
};

core::Status CheckTakes(EngineKind engine, const std::vector<EngineFlag>& flags, const std::string& why) {
  for (const auto& flag : flags) {
    if (!flag.given || std::find(flag.engines.begin(), flag.engines.end(), engine) != flag.engines.end()) continue;
    std::string takers;
    for (const auto kind : flag.engines) takers += (takers.empty() ? "" : " or ") + std::string(EngineName(kind));
    return core::Fail(core::Error::Usage(std::string(flag.name) + ": only for --engine " + takers + why));
  }
  return {};
}

}  // namespace

core::Status CheckEngineTakes(EngineKind engine, const UpFlags& flags) {
  const auto jetstream = EngineKind::kJetStream;
  const auto saxml = EngineKind::kSaxml;
  const auto vllm = EngineKind::kVllm;
  return CheckTakes(engine,
                    {{"--disaggregated", flags.disaggregated, {jetstream}},
                     {"--checkpoint", !flags.checkpoint.empty(), {jetstream, saxml}},
                     {"--bucket", !flags.bucket.empty(), {jetstream, saxml}},
                     {"--lws-manifest", !flags.lws_manifest.empty(), {jetstream, vllm}},
                     {"--jobset-manifest", !flags.jobset_manifest.empty(), {saxml}},
                     {"--replicas", !flags.replicas.empty(), {saxml}},
                     {"--model-path", !flags.model_path.empty(), {saxml}},
                     {"--sax-model", !flags.sax_model.empty(), {saxml}},
                     {"--expose", flags.expose, {saxml}},
                     {"--hf-token-file", !flags.hf_token_file.empty(), {vllm}},
                     {"--hf-config", !flags.hf_config.empty(), {vllm}}},
                    "");
}

core::Status CheckEngineTakes(EngineKind engine, const DownFlags& flags) {
  const auto jetstream = EngineKind::kJetStream;
  const auto saxml = EngineKind::kSaxml;
  // vLLM's down deletes what the run's ledger recorded: no template values to render again.
  return CheckTakes(engine,
                    {{"--disaggregated", flags.disaggregated, {jetstream}},
                     {"--replicas", !flags.replicas.empty(), {saxml}},
                     {"--sax-model", !flags.sax_model.empty(), {saxml}},
                     {"--tpu-type", !flags.tpu_type.empty(), {jetstream, saxml}},
                     {"--set", !flags.sets.empty(), {jetstream, saxml}},
                     {"--bucket", !flags.bucket.empty(), {jetstream, saxml}}},
                    engine == EngineKind::kVllm ? " (vLLM's: what to delete is the ledger's)" : "");
}

core::Result<std::optional<std::chrono::milliseconds>> CheckUpFlags(const UpFlags& flags) {
  // --tpu-type before --cluster is looked up: a typo is not reported after a GKE call.
  if (auto valid = workflow::CheckTpuType("--tpu-type", flags.tpu_type); !valid) return core::Fail(valid.error());
  if (!flags.nodepool.empty()) {
    if (auto valid = workflow::CheckGkeName("--nodepool", flags.nodepool); !valid) {
      return core::Fail(valid.error());
    }
  }
  if (flags.create_nodepool && flags.access.gke_cluster.empty()) {
    return core::Fail(core::Error::Usage("--create-nodepool: needs --cluster (the GKE cluster to add the pool to)"));
  }
  if (auto capacity = workflow::ResolveCapacity(flags.capacity); !capacity) return core::Fail(capacity.error());
  if (flags.timeout.empty()) return std::optional<std::chrono::milliseconds>();
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  return std::optional{*timeout};
}

core::Result<int> RunEngineUp(serving::EngineKind engine, const UpFlags& flags, Context& context) {
  return engine == serving::EngineKind::kVllm ? RunVllmUp(flags, context) : RunSaxmlUp(flags, context);
}

core::Status WithServeUpEnv(const UpFlags& flags, Context& context, bool dry_run,
                            const std::function<core::Status(workflow::ServeUpEnv&)>& run) {
  return workflow::WithServeUpEnv(
      context.stack(), {flags.access, {flags.ledger.run_id, flags.ledger.state_dir}, flags.lws_manifest, dry_run}, run);
}

nlohmann::json AppliedJson(const std::vector<k8s::ApplyResult>& applied, bool dry_run) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : applied) {
    json.push_back({{"kind", result.object.kind},
                    {"name", result.object.name},
                    {"action", k8s::ApplyActionName(result.action, dry_run)}});
  }
  return json;
}

core::Result<int> PrintDeleted(Context& context, const std::vector<k8s::DeleteResult>& deleted) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : deleted) {
    json.push_back({{"kind", result.object.kind}, {"name", result.object.name}, {"deleted", result.existed}});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    for (const auto& result : deleted) {
      out << result.object.Describe() << " " << (result.existed ? "deleted" : "not found") << "\n";
    }
  });
  return core::kExitOk;
}

}  // namespace tputrain::cli
