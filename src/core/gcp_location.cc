#include "tputrain/core/gcp_location.h"

namespace tputrain::core {
namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Consumes [a-z]+ from the front; false when there is none.
bool TakeLetters(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && IsLower(text[n])) ++n;
  text.remove_prefix(n);
  return n > 0;
}

bool TakeDigits(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && IsDigit(text[n])) ++n;
  text.remove_prefix(n);
  return n > 0;
}

bool TakeDash(std::string_view& text) {
  if (text.empty() || text.front() != '-') return false;
  text.remove_prefix(1);
  return true;
}

// Consumes a region ([a-z]+-[a-z]+[0-9]+) from the front.
bool TakeRegion(std::string_view& text) {
  return TakeLetters(text) && TakeDash(text) && TakeLetters(text) && TakeDigits(text);
}

}  // namespace

bool IsRegion(std::string_view location) { return TakeRegion(location) && location.empty(); }

bool IsZone(std::string_view location) {
  return TakeRegion(location) && TakeDash(location) && location.size() == 1 && IsLower(location.front());
}

std::string RegionOf(std::string_view location) {
  if (IsZone(location)) location.remove_suffix(2);
  return std::string(location);
}

}  // namespace tputrain::core
