#include "tputrain/core/timestamp.h"

#include <cstdio>
#include <ctime>

namespace tputrain::core {
namespace {

bool TakeDigits(std::string_view& text, size_t count, int& value) {
  if (text.size() < count) return false;
  value = 0;
  for (size_t i = 0; i < count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  text.remove_prefix(count);
  return true;
}

bool Take(std::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

}  // namespace

std::string FormatTimestamp(std::chrono::system_clock::time_point time) {
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis >= 0 ? millis / 1000 : (millis - 999) / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  char fraction[8];
  std::snprintf(fraction, sizeof(fraction), ".%03dZ", static_cast<int>(millis - seconds * 1000LL));
  return std::string(text) + fraction;
}

std::optional<std::chrono::system_clock::time_point> ParseTimestamp(std::string_view text) {
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!TakeDigits(text, 4, year) || !Take(text, '-') || !TakeDigits(text, 2, month) || !Take(text, '-') ||
      !TakeDigits(text, 2, day) || !(Take(text, 'T') || Take(text, 't')) || !TakeDigits(text, 2, hour) ||
      !Take(text, ':') || !TakeDigits(text, 2, minute) || !Take(text, ':') || !TakeDigits(text, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  long long micros = 0;
  if (Take(text, '.')) {
    size_t digits = 0;
    long long scale = 100000;
    while (!text.empty() && text.front() >= '0' && text.front() <= '9') {
      micros += (text.front() - '0') * scale;
      scale /= 10;
      text.remove_prefix(1);
      ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  int offset_minutes = 0;
  if (Take(text, 'Z') || Take(text, 'z')) {
  } else if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    const int sign = text.front() == '-' ? -1 : 1;
    text.remove_prefix(1);
    int hours = 0, minutes = 0;
    if (!TakeDigits(text, 2, hours) || !Take(text, ':') || !TakeDigits(text, 2, minutes)) return std::nullopt;
    offset_minutes = sign * (hours * 60 + minutes);
  } else {
    return std::nullopt;
  }
  if (!text.empty()) return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t seconds = timegm(&tm);
  return std::chrono::system_clock::from_time_t(seconds) - std::chrono::minutes(offset_minutes) +
         std::chrono::microseconds(micros);
}

}  // namespace tputrain::core
