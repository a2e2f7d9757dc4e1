#include "tputrain/core/number.h"

#include <string>

namespace tputrain::core {

Result<int64_t> ParseCount(std::string_view flag, std::string_view text, int64_t max) {
  auto refuse = [&] {
    return Fail(Error::Usage(std::string(flag) + ": expected a whole number from 1 to " + std::to_string(max) +
                             ", got '" + std::string(text) + "'"));
  };
  if (text.empty()) return refuse();
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return refuse();
    const int64_t digit = c - '0';
    if (value > (max - digit) / 10) return refuse();  // value * 10 + digit > max, without overflowing
    value = value * 10 + digit;
  }
  if (value < 1) return refuse();
  return value;
}

}  // namespace tputrain::core
