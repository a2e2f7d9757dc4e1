#include "tputrain/http/retrying_transport.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tputrain::http {
namespace {

bool IsTransientStatus(int status) { return status == 500 || status == 502 || status == 503 || status == 504; }

bool IsConnectionError(const core::Error& error) {
  return error.kind == core::ErrorKind::kUnavailable || error.kind == core::ErrorKind::kDeadlineExceeded;
}

}  // namespace

std::optional<std::chrono::milliseconds> RetryAfterHeader(const Response& response) {
  auto value = response.Header("retry-after");
  if (!value) return std::nullopt;
  long long seconds = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), seconds);
  // The HTTP-date form is not used by Google APIs; without a number there is no hint.
  if (ec != std::errc() || end != value->data() + value->size() || seconds < 0) return std::nullopt;
  return std::chrono::milliseconds(seconds * 1000);
}

RetryingTransport::RetryingTransport(Transport& inner, core::Sleeper& sleeper, RetryPolicy policy, RetryHint hint,
                                     std::uint64_t jitter_seed)
    : inner_(inner), sleeper_(sleeper), policy_(policy), hint_(std::move(hint)), rng_state_(jitter_seed | 1) {}

std::chrono::milliseconds RetryingTransport::Backoff(int retry) {
  double ceiling = static_cast<double>(policy_.initial_backoff.count()) * std::pow(policy_.multiplier, retry);
  ceiling = std::min(ceiling, static_cast<double>(policy_.max_backoff.count()));
  // xorshift64: deterministic per seed, so tests can reason about the waits.
  rng_state_ ^= rng_state_ << 13;
  rng_state_ ^= rng_state_ >> 7;
  rng_state_ ^= rng_state_ << 17;
  double fraction = static_cast<double>(rng_state_ % 1'000'000) / 1'000'000.0;
  // Full jitter, with half the window kept so that retries never bunch up at zero.
  return std::chrono::milliseconds(static_cast<long long>(ceiling * (0.5 + fraction / 2)));
}

core::Result<Response> RetryingTransport::Send(const Request& request) {
  for (int attempt = 1;; ++attempt) {
    auto result = inner_.Send(request);
    std::optional<std::chrono::milliseconds> wait;
    if (!result) {
      if (!request.idempotent || !IsConnectionError(result.error())) return result;
      wait = Backoff(attempt - 1);
    } else if (result->status == 429) {
      auto hinted = hint_ ? hint_(*result) : std::nullopt;
      if (!hinted || *hinted > policy_.max_server_delay) return result;
      wait = std::max(*hinted, Backoff(attempt - 1));
    } else if (IsTransientStatus(result->status) && (result->status != 500 || policy_.retry_internal_error)) {
      if (!request.idempotent && result->status != 503) return result;
      auto hinted = hint_ ? hint_(*result) : std::nullopt;
      wait = Backoff(attempt - 1);
      if (hinted && *hinted <= policy_.max_server_delay) wait = std::max(*wait, *hinted);
    } else {
      return result;
    }
    if (attempt >= policy_.max_attempts) return result;
    if (!sleeper_.Sleep(*wait)) return result;  // cancelled: report what we have
  }
}

}  // namespace tputrain::http
