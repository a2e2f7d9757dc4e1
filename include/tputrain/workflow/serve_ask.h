#pragma once

// `tputrain serve generate`: ask a served model, through the API server's service proxy (no
// port-forward, no public IP), as seed 002's `kubectl port-forward` + `curl /generate` do. The
// CLI fills a ServeAskRequest from its flags; PlanServeAsk checks what each engine takes before
// any connection, and ServeAsk sends it (or, under --dry-run, says what it would send).
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {

struct ServeAskRequest {
  KubeAccessFlags access;
  std::string engine = "jetstream";
  std::string service;  // default: the engine's (jetstream-svc)
  std::string port;     // default: the engine's (8000)
  // Saxml: the model id or preset (default: the preset's /sax/test/spmd); vLLM: a served model's
  // name (default: the one GET /v1/models lists first).
  std::string model;
  std::string prompt;
  std::vector<std::string> messages;  // vLLM: ROLE:TEXT, in order
  bool chat = false;                  // vLLM: the prompt as a user message, to /v1/chat/completions
  std::string max_tokens;             // default 200 where the engine takes it
  std::string temperature;            // vLLM; default: the server's
  bool stream = false;
  std::string timeout = "10m";
};

// A request checked: only PlanServeAsk makes one.
struct ServeAskPlan {
  KubeAccessFlags access;
  serving::EngineKind kind = serving::EngineKind::kJetStream;
  std::shared_ptr<const serving::Engine> engine;
  std::string service;
  int port = 0;
  serving::GenerateRequest request;
  std::chrono::milliseconds timeout{0};
};

// One usage line naming the flag for what the engine does not take (--stream, --message, --chat,
// --max-tokens, --temperature, --model), a bad service name, port, prompt, message or timeout.
core::Result<ServeAskPlan> PlanServeAsk(const ServeAskRequest& request);

struct ServeAskOutcome {
  std::string engine;  // its name
  std::string service;
  std::string ns;
  bool takes_max_tokens = false;
  std::vector<http::Request> planned;  // --dry-run: what would be sent (vLLM with no --model lists models first)
  GenerateOutcome generated;           // otherwise
};

// Connects and asks the model (Generate: `on_text` sees the text as it comes); with `dry_run`,
// only says what it would send.
core::Result<ServeAskOutcome> ServeAsk(Root& root, const ServeAskPlan& plan, bool dry_run,
                                       const std::function<void(std::string_view)>& on_text);
// serve generate --format json: under --dry-run the requests it would send; otherwise what was
// asked, the text, the server's usage and the timings (total_s, with --stream the time to the
// first token and tokens per second).
nlohmann::json ToJson(const ServeAskPlan& plan, const ServeAskOutcome& asked, bool dry_run);

}  // namespace tputrain::workflow
