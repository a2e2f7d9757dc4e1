#include "tputrain/core/number.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace tputrain::core {

Result<int64_t> ParseWhole(std::string_view flag, std::string_view text, int64_t min, int64_t max) {
  auto refuse = [&] {
    return Fail(Error::Usage(std::string(flag) + ": expected a whole number from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", got '" + std::string(text) + "'"));
  };
  if (text.empty()) return refuse();
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return refuse();
    const int64_t digit = c - '0';
    // value * 10 + digit > max, without overflowing (max - digit < 0 would round toward zero).
    if (max - digit < 0 || value > (max - digit) / 10) return refuse();
    value = value * 10 + digit;
  }
  if (value < min) return refuse();
  return value;
}

Result<uint64_t> ParseByteSize(std::string_view flag, std::string_view text, uint64_t max_bytes) {
  auto refuse = [&] {
    return Fail(Error::Usage(std::string(flag) + ": expected a size such as 512MiB or 2GiB (at most " +
                             std::to_string(max_bytes) + " bytes), got '" + std::string(text) + "'"));
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return refuse();
  const std::string_view unit = text.substr(digits);
  struct Unit {
    std::string_view short_name;
    std::string_view long_name;
    int shift;
  };
  constexpr Unit kUnits[] = {{"", "B", 0}, {"K", "KiB", 10}, {"M", "MiB", 20}, {"G", "GiB", 30}, {"T", "TiB", 40}};
  int shift = -1;
  for (const auto& known : kUnits) {
    if (unit == known.short_name || unit == known.long_name) shift = known.shift;
  }
  if (shift < 0) return refuse();
  auto number = ParseWhole(flag, text.substr(0, digits), 1, static_cast<int64_t>(max_bytes >> shift));
  if (!number) return refuse();
  return static_cast<uint64_t>(*number) << shift;
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

Result<int64_t> ParseCount(std::string_view flag, std::string_view text, int64_t max) {
  return ParseWhole(flag, text, 1, max);
}

Result<double> ParseAmount(std::string_view flag, std::string_view text, double max) {
  auto refuse = [&] {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", max);
    return Fail(Error::Usage(std::string(flag) + ": expected a number from 0 to " + limit + ", got '" +
                             std::string(text) + "'"));
  };
  // Checked by hand first: from_chars would also take "1e3", "inf" and "nan".
  size_t digits = 0;
  size_t points = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++points;
    } else {
      return refuse();
    }
  }
  if (digits == 0 || points > 1 || text.front() == '.' || text.back() == '.') return refuse();
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value > max) {
    return refuse();
  }
  return value;
}

}  // namespace tputrain::core
