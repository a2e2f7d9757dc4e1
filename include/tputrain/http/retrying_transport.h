#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "tputrain/core/clock.h"
#include "tputrain/http/transport.h"

namespace tputrain::http {

struct RetryPolicy {
  int max_attempts = 6;  // the first try included
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{32'000};
  double multiplier = 2.0;
  // A server asking for a longer wait than this is reported (as quota), not waited for.
  std::chrono::milliseconds max_server_delay{60'000};
  // Kubernetes answers 500 for a manifest it cannot type (server-side apply): not transient there.
  bool retry_internal_error = true;
};

// The server's "try again after" hint for a reply, if it gave one: Retry-After by default;
// Google's RetryInfo detail is read by gcp::RetryDelayOf, passed in by the Google stack.
using RetryHint = std::function<std::optional<std::chrono::milliseconds>(const Response&)>;
std::optional<std::chrono::milliseconds> RetryAfterHeader(const Response& response);

// Retries transient failures with exponential backoff and full jitter:
// - 500, 502, 503, 504 and connection errors, for idempotent requests;
// - 429 only when the reply says when to retry (`hint`); otherwise it is quota and returned;
// - never any other status (400, 401, 403, 404, 409 are returned after one try).
// A non-idempotent request (a create POST) is retried only after a 503 or a 429 with a hint,
// replies in which the server says it did not act. A timeout, a dropped connection or a
// 500/502/504 is ambiguous for it: that reply is returned and the caller resolves it by reading
// the resource back (GET, then adopt), never by a blind second POST.
class RetryingTransport final : public Transport {
 public:
  RetryingTransport(Transport& inner, core::Sleeper& sleeper, RetryPolicy policy = {},
                    RetryHint hint = RetryAfterHeader, std::uint64_t jitter_seed = 0x9e3779b97f4a7c15ULL);

  core::Result<Response> Send(const Request& request) override;
  // Streams are not retried: part of the body may already have been delivered.
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override {
    return inner_.Stream(request, on_chunk);
  }

 private:
  std::chrono::milliseconds Backoff(int retry);

  Transport& inner_;
  core::Sleeper& sleeper_;
  RetryPolicy policy_;
  RetryHint hint_;
  std::uint64_t rng_state_;
};

}  // namespace tputrain::http
