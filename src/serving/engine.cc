#include "engines.h"

namespace tputrain::serving {

std::string_view EngineName(EngineKind kind) {
  switch (kind) {
    case EngineKind::kJetStream:
      return "jetstream";
    case EngineKind::kSaxml:
      return "saxml";
    case EngineKind::kVllm:
      return "vllm";
  }
  return "jetstream";
}

core::Result<EngineKind> ParseEngine(std::string_view flag, std::string_view name) {
  for (auto kind : {EngineKind::kJetStream, EngineKind::kSaxml, EngineKind::kVllm}) {
    if (name == EngineName(kind)) return kind;
  }
  return core::Fail(core::Error::Usage(std::string(flag) + ": unknown engine '" + std::string(name) +
                                       "'; expected jetstream, saxml or vllm"));
}

std::unique_ptr<Engine> MakeEngine(EngineKind kind) {
  switch (kind) {
    case EngineKind::kJetStream:
      return MakeJetStream();
    case EngineKind::kSaxml:
      return MakeSaxml();
    case EngineKind::kVllm:
      return MakeVllm();
  }
  return MakeJetStream();
}

core::Result<std::string> Engine::ParseServedModel(const http::Response& /*response*/) const {
  return core::Fail(core::Error::Internal(std::string(EngineName(kind())) + " lists no served models"));
}

}  // namespace tputrain::serving
