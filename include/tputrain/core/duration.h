#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::core {

// Whether a flag may be given a zero duration: `--op-latency 0` means "no latency", while a zero
// `--timeout` would give up before the first look, so timeouts refuse it.
enum class ZeroDuration { kRefused, kAllowed };

// The one grammar of every duration flag (`--timeout`, `--ready-timeout`, `--op-latency`, ...):
// one or more <number><unit> terms, units ms, s, m, h, largest first ("500ms", "90s", "30m",
// "2h", "1h30m", "1.5s"); or a bare number, read as seconds ("90", "1.5": `job wait --timeout`
// took seconds before it took units). Empty text, signs, NaN, a unit out of order, an unknown
// unit and values beyond about 290 years fail with one usage line naming `flag`, e.g.
// "--timeout: expected a duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds), got 'x'".
// The result is rounded to the nearest millisecond.
Result<std::chrono::milliseconds> ParseDuration(std::string_view flag, std::string_view text,
                                                ZeroDuration zero = ZeroDuration::kRefused);
// The same for a limit that may be left out: empty text is no limit (nullopt).
Result<std::optional<std::chrono::milliseconds>> ParseOptionalDuration(std::string_view flag, std::string_view text);

// The shortest text ParseDuration reads back as `duration`: "2h", "1h30m", "1m30s", "0s", and
// "1500ms" when it is not whole seconds.
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace tputrain::core
