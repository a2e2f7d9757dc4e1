#include "engines.h"

namespace tputrain::serving {

std::string_view EngineName(EngineKind kind) {
  switch (kind) {
    case EngineKind::kJetStream:
      return "jetstream";
    case EngineKind::kSaxml:
      return "saxml";
  }
  return "jetstream";
}

core::Result<EngineKind> ParseEngine(std::string_view flag, std::string_view name) {
  for (auto kind : {EngineKind::kJetStream, EngineKind::kSaxml}) {
    if (name == EngineName(kind)) return kind;
  }
  return core::Fail(core::Error::Usage(std::string(flag) + ": unknown engine '" + std::string(name) +
                                       "'; expected jetstream or saxml"));
}

std::unique_ptr<Engine> MakeEngine(EngineKind kind) {
  switch (kind) {
    case EngineKind::kJetStream:
      return MakeJetStream();
    case EngineKind::kSaxml:
      return MakeSaxml();
  }
  return MakeJetStream();
}

}  // namespace tputrain::serving
