#include "serve_engine_options.h"

#include <algorithm>

#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {

using serving::EngineKind;

core::Result<EngineKind> ServeEngineOf(std::string_view flag, const std::string& engine, const std::string& model) {
  if (engine.empty()) return IsSaxmlPreset(model) ? EngineKind::kSaxml : EngineKind::kJetStream;
  return serving::ParseEngine(flag, engine);
}

const std::vector<EngineOption>& ServeUpEngineOptions() {
  const auto jetstream = EngineKind::kJetStream;
  const auto saxml = EngineKind::kSaxml;
  const auto vllm = EngineKind::kVllm;
  static const std::vector<EngineOption> options = {{"disaggregated", {jetstream}},
                                                    {"checkpoint", {jetstream, saxml}},
                                                    {"bucket", {jetstream, saxml}},
                                                    {"lws-manifest", {jetstream, vllm}},
                                                    {"jobset-manifest", {saxml}},
                                                    {"replicas", {saxml}},
                                                    {"model-path", {saxml}},
                                                    {"sax-model", {saxml}},
                                                    {"expose", {saxml}},
                                                    {"hf-token-file", {vllm}},
                                                    {"hf-config", {vllm}}};
  return options;
}

const std::vector<EngineOption>& ServeDownEngineOptions() {
  const auto jetstream = EngineKind::kJetStream;
  const auto saxml = EngineKind::kSaxml;
  static const std::vector<EngineOption> options = {{"disaggregated", {jetstream}}, {"replicas", {saxml}},
                                                    {"sax-model", {saxml}},         {"tpu-type", {jetstream, saxml}},
                                                    {"set", {jetstream, saxml}},    {"bucket", {jetstream, saxml}}};
  return options;
}

std::optional<EngineRefusal> RefusedOption(EngineKind engine, const std::vector<EngineOption>& options,
                                           const std::function<bool(std::string_view option)>& given) {
  for (const auto& option : options) {
    if (!given(option.name)) continue;
    if (std::find(option.engines.begin(), option.engines.end(), engine) != option.engines.end()) continue;
    std::string takers;
    for (const auto kind : option.engines) takers += (takers.empty() ? "" : " or ") + std::string(EngineName(kind));
    return EngineRefusal{std::string(option.name), takers};
  }
  return std::nullopt;
}

}  // namespace tputrain::workflow
