#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"

namespace tputrain::core {

// What a wait returns when its timeout passes.
enum class OnTimeout {
  kDeadlineExceeded,  // kDeadlineExceeded, "stopped waiting after 30m (<timeout_note>)"
  kLastError,         // the poll's last (transient) error, as if it had not been retried
};

// Soon at first, then growing, capped: a thing that is ready in a second is seen within a
// second, one that takes ten minutes costs a look every `max_delay`.
struct PollOptions {
  std::chrono::milliseconds initial_delay{1000};
  double multiplier = 1.5;
  std::chrono::milliseconds max_delay{10000};
  // Stop waiting (not the thing waited for) after this long; nullopt waits for ever.
  std::optional<std::chrono::milliseconds> timeout;
  // Consecutive transient poll failures tolerated before the failure is returned.
  int transient_failures = 5;
  // Which failures are transient; empty means UNAVAILABLE, INTERNAL and DEADLINE_EXCEEDED.
  std::function<bool(const Error&)> is_transient;
  OnTimeout on_timeout = OnTimeout::kDeadlineExceeded;
  // Said in brackets after a timeout, e.g. "the operation goes on".
  std::string timeout_note;
};

// The delay after poll number `attempt` (0-based): initial_delay × multiplier^attempt, capped.
std::chrono::milliseconds PollDelay(const PollOptions& options, int attempt);

struct PollEnv {
  Clock& clock;
  Sleeper& sleeper;
  const CancelToken* cancel = nullptr;
};

// Calls `poll` (true: done, false: not yet) until it is done, fails with a non-transient error
// (returned as it is), fails transiently more than `transient_failures` times in a row, the
// timeout passes (see OnTimeout), or the wait is cancelled (kCancelled, "interrupted while
// waiting"). The first poll is immediate; no sleep reaches past the timeout, and a last poll is
// made when it is reached.
Status PollUntil(const std::function<Result<bool>()>& poll, const PollOptions& options, const PollEnv& env);

}  // namespace tputrain::core
