#include "tputrain/core/base64.h"

#include <cstdint>

namespace tputrain::core {
namespace {

constexpr std::string_view kStandard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string_view Characters(Base64Alphabet alphabet) {
  return alphabet == Base64Alphabet::kUrlSafe ? kUrlSafe : kStandard;
}

bool IsSkipped(char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; }

Error NotBase64(std::string why) { return Error::Usage("not valid base64: " + std::move(why)); }

}  // namespace

std::string EncodeBase64(std::string_view bytes, Base64Alphabet alphabet, Base64Padding padding) {
  std::string_view table = Characters(alphabet);
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t at) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])); };
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out += {table[(n >> 18) & 63], table[(n >> 12) & 63], table[(n >> 6) & 63], table[n & 63]};
  }
  size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  uint32_t n = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
  out += {table[(n >> 18) & 63], table[(n >> 12) & 63]};
  if (rest == 2) out += table[(n >> 6) & 63];
  if (padding == Base64Padding::kPadded) out.append(3 - rest, '=');
  return out;
}

Result<std::string> DecodeBase64(std::string_view text, Base64Alphabet alphabet) {
  std::string_view table = Characters(alphabet);
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t buffer = 0;
  int bits = 0;
  size_t symbols = 0;
  size_t pads = 0;
  for (char c : text) {
    if (IsSkipped(c)) continue;
    if (c == '=') {
      ++pads;
      continue;
    }
    if (pads > 0) return Fail(NotBase64("'=' before the end"));
    auto value = table.find(c);
    if (value == std::string_view::npos) {
      return Fail(NotBase64(std::string("unexpected character '") + c + "'"));
    }
    ++symbols;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  if (pads > 2) return Fail(NotBase64("more than two '='"));
  // One symbol left over carries only six bits, less than a byte: no encoder writes that.
  if (symbols % 4 == 1) return Fail(NotBase64("truncated"));
  if (pads > 0 && (symbols + pads) % 4 != 0) return Fail(NotBase64("wrong padding"));
  return out;
}

}  // namespace tputrain::core
