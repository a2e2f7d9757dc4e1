#include "tputrain/core/text.h"

#include <cstdio>
#include <optional>

namespace tputrain::core {
namespace {

// The length of the UTF-8 sequence at `text[at]`, or 0 when it is not one.
size_t Utf8Length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned min = 0;
  unsigned code = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(at + i) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// The code point of `character` (one UTF-8 sequence) when it is a bidirectional formatting
// control: ALM, LRM and RLM, the embeddings and overrides U+202A..U+202E, the isolates
// U+2066..U+2069.
std::optional<unsigned> BidiControl(std::string_view character) {
  if (character == "\xd8\x9c") return 0x061C;
  if (character.size() != 3 || static_cast<unsigned char>(character[0]) != 0xE2) return std::nullopt;
  const unsigned code = ((static_cast<unsigned char>(character[1]) & 0x3Fu) << 6) |
                        (static_cast<unsigned char>(character[2]) & 0x3Fu) | 0x2000u;
  if (code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069)) {
    return code;
  }
  return std::nullopt;
}

void AppendHex(std::string& out, unsigned char c) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
  out += escaped;
}

}  // namespace

std::string PrintableText(std::string_view text, Newlines newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    const size_t length = Utf8Length(text, at);
    if (length == 0) {
      AppendHex(out, c);
      ++at;
      continue;
    }
    if (length == 1) {
      if (c == '\n' && newlines == Newlines::kKeep) {
        out += '\n';
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
        AppendHex(out, c);
      } else {
        out += static_cast<char>(c);
      }
    } else if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0) {
      // U+0080..U+009F: the C1 controls (CSI among them) that some terminals obey.
      AppendHex(out, static_cast<unsigned char>(text[at + 1]));
    } else if (auto code = BidiControl(text.substr(at, length))) {
      // Shown, not obeyed: a bidi control reorders what follows it, so printed text could read
      // otherwise than it is ("Trojan Source").
      char escaped[10];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", *code);
      out += escaped;
    } else {
      out.append(text.substr(at, length));
    }
    at += length;
  }
  return out;
}

std::string Counted(long long count, std::string_view one, std::string_view many) {
  std::string text = std::to_string(count) + " ";
  if (count == 1) return text + std::string(one);
  return many.empty() ? text + std::string(one) + "s" : text + std::string(many);
}

}  // namespace tputrain::core
