#include <algorithm>

#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

using Millis = std::chrono::milliseconds;

Millis Since(core::Clock& clock, core::Clock::TimePoint start) {
  return std::chrono::duration_cast<Millis>(clock.Now() - start);
}

// What is kept of a failed answer's body for its message: error bodies are short.
constexpr std::size_t kErrorBodyBytes = 64 * 1024;

// The most text kept for a caller that takes the answer whole (a JSON document): as much as a
// whole answer may be (CurlOptions::max_response_bytes). A caller that prints as it goes keeps
// nothing, so a streamed answer of any length runs in constant memory.
constexpr std::size_t kKeptTextBytes = 64 * 1024 * 1024;

core::Error TooLong() {
  return core::Error::Make(core::ErrorKind::kResourceExhausted,
                           "serve generate: the answer is longer than 64 MiB, more than a JSON document holds: "
                           "stream it with --stream and without --format json, or ask for fewer --max-tokens");
}

// The server's base model (vLLM: the first of GET /v1/models), for a request that names none.
core::Result<std::string> ServedModel(const ServeEndpoint& endpoint, const serving::Engine& engine,
                                      const http::Request& list) {
  http::Request call = list;
  call.timeout = std::min<std::chrono::milliseconds>(endpoint.timeout, std::chrono::seconds(60));
  auto response = endpoint.transport.Send(call);
  if (!response) return core::Fail(response.error());
  if (response->status != 200) return core::Fail(engine.ErrorFrom(*response));
  return engine.ParseServedModel(*response);
}

std::optional<double> PerSecond(int64_t count, Millis elapsed) {
  if (count <= 0 || elapsed.count() <= 0) return std::nullopt;
  return static_cast<double>(count) * 1000.0 / static_cast<double>(elapsed.count());
}

}  // namespace

core::Result<GenerateOutcome> Generate(const ServeEndpoint& endpoint, const serving::Engine& engine,
                                       const serving::GenerateRequest& asked,
                                       const std::function<void(std::string_view)>& on_text) {
  serving::GenerateRequest request = asked;
  if (auto list = engine.BuildListModels(endpoint.base_url); list && request.model.empty()) {
    auto model = ServedModel(endpoint, engine, *list);
    if (!model) return core::Fail(model.error());
    request.model = std::move(*model);
  }
  http::Request call = engine.BuildGenerate(endpoint.base_url, request);
  call.timeout = endpoint.timeout;
  GenerateOutcome outcome;
  outcome.model = request.model;
  const auto start = endpoint.clock.Now();
  if (!request.stream) {
    auto response = endpoint.transport.Send(call);
    if (!response) return core::Fail(response.error());
    if (response->status != 200) return core::Fail(engine.ErrorFrom(*response));
    auto text = engine.ParseGenerated(*response);
    if (!text) return core::Fail(text.error());
    outcome.total = Since(endpoint.clock, start);
    outcome.usage = engine.UsageOf(*response);
    if (outcome.usage) outcome.tokens_per_second = PerSecond(outcome.usage->completion_tokens, outcome.total);
    if (on_text) {
      on_text(*text);
    } else {
      outcome.text = std::move(*text);
    }
    return outcome;
  }

  auto decoder = engine.NewStreamDecoder();
  std::string head;  // the first bytes, for the message of an answer that is not a stream
  std::optional<core::Error> broken;
  std::optional<core::Clock::TimePoint> first_at;
  // Each piece goes out (or is kept) as soon as its chunk arrives; the status line came first.
  auto take = [&](const core::Result<std::vector<std::string>>& pieces) {
    if (!pieces) {
      broken = pieces.error();
      return;
    }
    for (const auto& piece : *pieces) {
      if (piece.empty()) continue;
      if (!first_at) first_at = endpoint.clock.Now();
      ++outcome.pieces;
      if (on_text) {
        on_text(piece);
        continue;
      }
      if (outcome.text.size() + piece.size() > kKeptTextBytes) {
        broken = TooLong();
        return;
      }
      outcome.text += piece;
    }
  };
  auto response = endpoint.transport.Stream(call, [&](std::string_view chunk) {
    if (head.size() < kErrorBodyBytes) head.append(chunk.substr(0, kErrorBodyBytes - head.size()));
    if (!broken) take(decoder->Feed(chunk));  // after a break, keep reading: the status decides
    return true;
  });
  if (!response) return core::Fail(response.error());
  if (response->status != 200) {
    // The transport keeps a refusal's body whole in the response (a fake may stream it instead).
    http::Response failed = *response;
    if (failed.body.empty()) failed.body = head;
    return core::Fail(engine.ErrorFrom(failed));
  }
  if (!broken) take(decoder->Finish());
  if (broken) return core::Fail(*broken);
  outcome.total = Since(endpoint.clock, start);
  outcome.usage = decoder->usage();
  if (first_at) {
    outcome.time_to_first_token = std::chrono::duration_cast<Millis>(*first_at - start);
    const int64_t tokens = outcome.usage && outcome.usage->completion_tokens > 0 ? outcome.usage->completion_tokens
                                                                                 : static_cast<int64_t>(outcome.pieces);
    outcome.tokens_per_second = PerSecond(tokens - 1, outcome.total - *outcome.time_to_first_token);
  }
  return outcome;
}

core::Result<bool> IsServing(const ServeEndpoint& endpoint, const serving::Engine& engine) {
  http::Request probe = engine.BuildHealthCheck(endpoint.base_url);
  probe.timeout = std::chrono::seconds(30);
  auto response = endpoint.transport.Send(probe);
  if (!response) return core::Fail(response.error());
  return engine.IsHealthy(*response);
}

}  // namespace tputrain::workflow
