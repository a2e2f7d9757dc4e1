#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

// RFC 3339 times in UTC, as Google's APIs write them and the ledger records them.
namespace tputrain::core {

// "2026-11-26T01:02:03.456Z": milliseconds, so that a spend computed from two of them is exact
// to well under a second.
std::string FormatTimestamp(std::chrono::system_clock::time_point time);

// "2026-11-26T01:02:03Z", "2026-11-26T01:02:03.456789Z", "2026-11-26T01:02:03+02:00": any
// fraction (kept to the microsecond) and offset; nothing when the text is not one.
std::optional<std::chrono::system_clock::time_point> ParseTimestamp(std::string_view text);

}  // namespace tputrain::core
