#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/serving/engine.h"

// Talking to a served model through the API server's service proxy: no port-forward, no public
// IP. The engine (serving::Engine) owns the wire shapes; this times and streams.
namespace tputrain::workflow {

struct ServeEndpoint {
  http::Transport& transport;  // the cluster's: it adds the Kubernetes credential to each request
  std::string base_url;        // .../services/NAME:PORT/proxy/ (k8s::ServiceProxyUrl)
  core::Clock& clock;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

struct GenerateOutcome {
  std::string text;
  // Streamed pieces with text in them (JetStream sends one per token); 0 for a whole answer.
  std::size_t pieces = 0;
  std::optional<std::chrono::milliseconds> time_to_first_token;  // streamed only
  std::chrono::milliseconds total{0};
  // Pieces after the first, per second after the first arrived: the decode rate. Streamed only.
  std::optional<double> tokens_per_second;
};

// Sends one generate request. With `request.stream`, `on_text` receives each piece as it
// arrives; otherwise it receives the whole text once. An answer that is not a success is the
// engine's one-line error (the server's words, its HTTP status).
core::Result<GenerateOutcome> Generate(const ServeEndpoint& endpoint, const serving::Engine& engine,
                                       const serving::GenerateRequest& request,
                                       const std::function<void(std::string_view)>& on_text);

// One health probe: true when the engine says it serves.
core::Result<bool> IsServing(const ServeEndpoint& endpoint, const serving::Engine& engine);

}  // namespace tputrain::workflow
