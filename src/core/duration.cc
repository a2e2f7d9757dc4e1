#include "tputrain/core/duration.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace tputrain::core {
namespace {

struct Unit {
  std::string_view name;
  double milliseconds;
};

// Largest first: a compound duration must name its units in this order, each at most once.
constexpr Unit kUnits[] = {{"h", 3'600'000}, {"ms", 1}, {"m", 60'000}, {"s", 1000}};
constexpr int RankOf(std::string_view unit) { return unit == "h" ? 0 : unit == "m" ? 1 : unit == "s" ? 2 : 3; }

bool IsNumberChar(char c) { return (c >= '0' && c <= '9') || c == '.'; }

// Reads "<digits>[.<digits>]" at the front of `text`; from_chars alone would accept "inf",
// "nan", exponents and signs, none of which a duration flag should.
std::optional<double> TakeNumber(std::string_view& text) {
  size_t end = 0;
  while (end < text.size() && IsNumberChar(text[end])) ++end;
  std::string_view digits = text.substr(0, end);
  if (digits.empty() || digits.front() == '.' || digits.back() == '.') return std::nullopt;
  double value = 0;
  auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || stop != digits.data() + digits.size() || !std::isfinite(value)) return std::nullopt;
  text.remove_prefix(end);
  return value;
}

const Unit* TakeUnit(std::string_view& text) {
  for (const auto& unit : kUnits) {
    if (text.substr(0, unit.name.size()) == unit.name) {
      text.remove_prefix(unit.name.size());
      return &unit;
    }
  }
  return nullptr;
}

// Total milliseconds, or nullopt when `text` is not in the grammar.
std::optional<double> Milliseconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  int last_rank = -1;
  while (!text.empty()) {
    auto number = TakeNumber(text);
    if (!number) return std::nullopt;
    if (text.empty() && last_rank < 0) return *number * 1000;  // a bare number is seconds
    const Unit* unit = TakeUnit(text);
    if (unit == nullptr) return std::nullopt;
    int rank = RankOf(unit->name);
    if (rank <= last_rank) return std::nullopt;
    last_rank = rank;
    total += *number * unit->milliseconds;
  }
  return total;
}

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view flag, std::string_view text, ZeroDuration zero) {
  auto refuse = [&](std::string_view expected) {
    return Fail(
        Error::Usage(std::string(flag) + ": expected " + std::string(expected) + ", got '" + std::string(text) + "'"));
  };
  constexpr std::string_view kForm = "a duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds)";
  auto total = Milliseconds(text);
  if (!total) return refuse(kForm);
  // int64 milliseconds hold about 292 million years; a flag beyond that is a typo, not a wish.
  if (*total >= static_cast<double>(std::numeric_limits<int64_t>::max() / 2)) return refuse(kForm);
  auto rounded = std::chrono::milliseconds(std::llround(*total));
  if (rounded.count() == 0 && zero == ZeroDuration::kRefused) {
    return refuse("a duration above zero such as 90s, 30m or 2h");
  }
  return rounded;
}

Result<std::optional<std::chrono::milliseconds>> ParseOptionalDuration(std::string_view flag, std::string_view text) {
  if (text.empty()) return std::optional<std::chrono::milliseconds>();
  auto duration = ParseDuration(flag, text);
  if (!duration) return Fail(duration.error());
  return std::optional<std::chrono::milliseconds>(*duration);
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms % 1000 != 0) return std::to_string(ms) + "ms";
  int64_t seconds = ms / 1000;
  if (seconds == 0) return "0s";
  std::string out;
  if (seconds >= 3600) out += std::to_string(seconds / 3600) + "h";
  if (seconds % 3600 >= 60) out += std::to_string(seconds % 3600 / 60) + "m";
  if (seconds % 60 != 0) out += std::to_string(seconds % 60) + "s";
  return out;
}

}  // namespace tputrain::core
