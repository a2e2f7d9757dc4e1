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
    if (value > (max - digit) / 10) return refuse();  // value * 10 + digit > max, without overflowing
    value = value * 10 + digit;
  }
  if (value < min) return refuse();
  return value;
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
