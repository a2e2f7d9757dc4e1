#include "tputrain/core/utf8.h"

#include <algorithm>

namespace tputrain::core {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed character at `text[i]`, or 0 when none starts there.
size_t CharacterLength(std::string_view text, size_t i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (byte < 0x80) {
    return 1;
  } else if (byte >= 0xC2 && byte <= 0xDF) {
    length = 2;
  } else if (byte >= 0xE0 && byte <= 0xEF) {
    length = 3;
    if (byte == 0xE0) low = 0xA0;   // overlong
    if (byte == 0xED) high = 0x9F;  // surrogates
  } else if (byte >= 0xF0 && byte <= 0xF4) {
    length = 4;
    if (byte == 0xF0) low = 0x90;   // overlong
    if (byte == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if (k == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xBF)) return 0;
  }
  return length;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = CharacterLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string Utf8Excerpt(std::string_view text, std::size_t max_bytes, std::string_view cut) {
  std::string excerpt;
  excerpt.reserve(std::min(text.size(), max_bytes));
  for (size_t i = 0; i < text.size();) {
    const size_t length = CharacterLength(text, i);
    const std::string_view character = length == 0 ? kReplacement : text.substr(i, length);
    if (excerpt.size() + character.size() > max_bytes) {
      excerpt.append(cut);
      return excerpt;
    }
    excerpt.append(character);
    i += length == 0 ? 1 : length;
  }
  return excerpt;
}

std::string OneLineExcerpt(std::string_view text, std::size_t max_bytes, std::string_view cut) {
  std::string line;
  line.reserve(std::min(text.size(), max_bytes));
  for (char c : text) {
    const bool blank = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (blank && (line.empty() || line.back() == ' ')) continue;
    line += blank ? ' ' : c;
    if (line.size() > max_bytes && line.size() - max_bytes > 4) break;  // enough to cut from
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return Utf8Excerpt(line, max_bytes, cut);
}

}  // namespace tputrain::core
