#pragma once

// The flags of `tputrain serve generate`, and the request they make for an engine: what each
// engine takes is checked here, before any connection.
#include <string>
#include <vector>

#include "commands/k8s_access.h"
#include "tputrain/core/result.h"
#include "tputrain/serving/engine.h"

namespace tputrain::cli {

struct GenerateFlags {
  KubeAccessFlags access;
  std::string engine = "jetstream";
  std::string service;  // default: the engine's (jetstream-svc)
  std::string port;     // default: the engine's (8000)
  // Saxml: the model id or preset (default: the preset's /sax/test/spmd); vLLM: a served model's
  // name (default: the one GET /v1/models lists first).
  std::string model;
  std::string prompt;
  std::vector<std::string> messages;  // vLLM: ROLE:TEXT, in order
  bool chat = false;                  // vLLM: --prompt as a user message, to /v1/chat/completions
  std::string max_tokens;             // default 200 where the engine takes it
  std::string temperature;            // vLLM; default: the server's
  bool stream = false;
  std::string timeout = "10m";
};

core::Result<serving::GenerateRequest> GenerateRequestOf(const GenerateFlags& flags, serving::EngineKind kind,
                                                         const serving::Engine& engine);

}  // namespace tputrain::cli
