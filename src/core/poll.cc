#include "tputrain/core/poll.h"

#include <algorithm>
#include <cmath>

#include "tputrain/core/duration.h"
#include "tputrain/core/poll_seen.h"

namespace tputrain::core {
namespace {

bool DefaultTransient(const Error& error) {
  return error.kind == ErrorKind::kUnavailable || error.kind == ErrorKind::kInternal ||
         error.kind == ErrorKind::kDeadlineExceeded;
}

Error Interrupted() { return Error::Cancelled("interrupted while waiting"); }

Error TimedOut(const PollOptions& options) {
  std::string message = "stopped waiting after " + FormatDuration(*options.timeout);
  if (!options.timeout_note.empty()) message += " (" + options.timeout_note + ")";
  return Error::Make(ErrorKind::kDeadlineExceeded, message);
}

}  // namespace

std::chrono::milliseconds PollDelay(const PollOptions& options, int attempt) {
  double delay = static_cast<double>(options.initial_delay.count()) * std::pow(options.multiplier, attempt);
  delay = std::min(delay, static_cast<double>(options.max_delay.count()));
  return std::chrono::milliseconds(static_cast<int64_t>(delay));
}

Status PollUntil(const std::function<Result<bool>()>& poll, const PollOptions& options, const PollEnv& env) {
  return PollUntilSeen(
      [&poll]() -> Result<Seen> {
        auto done = poll();
        if (!done) return Fail(done.error());
        return *done ? Seen::kDone : Seen::kWaiting;
      },
      options, env);
}

Status PollUntilSeen(const std::function<Result<Seen>()>& poll, const PollOptions& options, const PollEnv& env) {
  const auto start = env.clock.Now();
  const auto& is_transient = options.is_transient ? options.is_transient : DefaultTransient;
  std::optional<Error> last_failure;
  int transient = 0;
  for (int attempt = 0;; ++attempt) {
    if (env.cancel != nullptr && env.cancel->cancelled()) return Fail(Interrupted());
    auto seen = poll();
    if (seen && *seen == Seen::kDone) return {};
    if (!seen) {
      if (!is_transient(seen.error()) || ++transient > options.transient_failures) return Fail(seen.error());
      last_failure = seen.error();
    } else {
      transient = 0;
      last_failure.reset();
      if (*seen == Seen::kProgressed) attempt = 0;
    }
    auto delay = PollDelay(options, attempt);
    if (options.timeout) {
      auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
      if (elapsed >= *options.timeout) {
        if (options.on_timeout == OnTimeout::kLastError && last_failure) return Fail(*last_failure);
        return Fail(TimedOut(options));
      }
      delay = std::min(delay, *options.timeout - elapsed);
    }
    if (!env.sleeper.Sleep(delay)) return Fail(Interrupted());
  }
}

}  // namespace tputrain::core
