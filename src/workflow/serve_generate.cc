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

}  // namespace

core::Result<GenerateOutcome> Generate(const ServeEndpoint& endpoint, const serving::Engine& engine,
                                       const serving::GenerateRequest& request,
                                       const std::function<void(std::string_view)>& on_text) {
  http::Request call = engine.BuildGenerate(endpoint.base_url, request);
  call.timeout = endpoint.timeout;
  GenerateOutcome outcome;
  const auto start = endpoint.clock.Now();
  if (!request.stream) {
    auto response = endpoint.transport.Send(call);
    if (!response) return core::Fail(response.error());
    if (response->status != 200) return core::Fail(engine.ErrorFrom(*response));
    auto text = engine.ParseGenerated(*response);
    if (!text) return core::Fail(text.error());
    outcome.total = Since(endpoint.clock, start);
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
  auto response = endpoint.transport.Stream(call, [&](std::string_view chunk) {
    if (head.size() < kErrorBodyBytes) head.append(chunk.substr(0, kErrorBodyBytes - head.size()));
    if (broken) return true;  // keep reading: the status decides which error is reported
    auto pieces = decoder->Feed(chunk);
    if (!pieces) {
      broken = pieces.error();
      return true;
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
        return true;
      }
      outcome.text += piece;
    }
    return true;
  });
  if (!response) return core::Fail(response.error());
  if (response->status != 200) {
    http::Response failed = *response;
    failed.body = head;
    return core::Fail(engine.ErrorFrom(failed));
  }
  if (broken) return core::Fail(*broken);
  outcome.total = Since(endpoint.clock, start);
  if (first_at) {
    outcome.time_to_first_token = std::chrono::duration_cast<Millis>(*first_at - start);
    const auto decoding = outcome.total - *outcome.time_to_first_token;
    if (outcome.pieces > 1 && decoding.count() > 0) {
      outcome.tokens_per_second =
          static_cast<double>(outcome.pieces - 1) * 1000.0 / static_cast<double>(decoding.count());
    }
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
