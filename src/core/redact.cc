#include "tputrain/core/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace tputrain::core {
namespace {

// Hand-written scanners rather than std::regex: libstdc++'s regex recurses per character and
// can exhaust the stack on a multi-kilobyte body, and a redactor must never fail.

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

size_t FindNoCase(const std::string& text, std::string_view needle, size_t from) {
  if (needle.empty() || text.size() < needle.size()) return std::string::npos;
  for (size_t i = from; i + needle.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && Lower(text[i + j]) == Lower(needle[j])) ++j;
    if (j == needle.size()) return i;
  }
  return std::string::npos;
}

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '~' || c == '+' ||
         c == '/' || c == '=' || c == '%';
}

// Replaces text[begin, end) with kRedacted and returns the index just past the replacement.
size_t ReplaceSpan(std::string& text, size_t begin, size_t end) {
  text.replace(begin, end - begin, kRedacted);
  return begin + kRedacted.size();
}

void RedactAfterPrefix(std::string& text, std::string_view prefix, bool (*stop)(char)) {
  size_t at = 0;
  while ((at = FindNoCase(text, prefix, at)) != std::string::npos) {
    size_t begin = at + prefix.size();
    size_t end = begin;
    while (end < text.size() && !stop(text[end])) ++end;
    if (end == begin || text.compare(begin, end - begin, kRedacted) == 0) {
      at = end;
      continue;
    }
    at = ReplaceSpan(text, begin, end);
  }
}

bool EndOfLine(char c) { return c == '\r' || c == '\n'; }
bool EndOfToken(char c) { return !IsTokenChar(c); }
bool EndOfFormValue(char c) { return c == '&' || c == '"' || c == '\'' || std::isspace(static_cast<unsigned char>(c)); }

void RedactBearer(std::string& text) {
  size_t at = 0;
  // Case-sensitive, as tokens are written; header lines of any case are caught by the
  // Authorization rule, and "bearer" in prose is left alone.
  while ((at = text.find("Bearer", at)) != std::string::npos) {
    size_t begin = at + 6;
    size_t after_space = begin;
    while (after_space < text.size() && (text[after_space] == ' ' || text[after_space] == '\t')) ++after_space;
    if (after_space == begin) {
      at = begin;
      continue;
    }
    size_t end = after_space;
    while (end < text.size() && IsTokenChar(text[end])) ++end;
    if (end == after_space || text.compare(after_space, end - after_space, kRedacted) == 0) {
      at = end;
      continue;
    }
    at = ReplaceSpan(text, after_space, end);
  }
}

// "name" : "value" → "name": "REDACTED", honouring backslash escapes inside the value.
void RedactJsonField(std::string& text, std::string_view name) {
  std::string quoted = "\"" + std::string(name) + "\"";
  size_t at = 0;
  while ((at = text.find(quoted, at)) != std::string::npos) {
    size_t i = at + quoted.size();
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != ':') {
      at = i;
      continue;
    }
    ++i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != '"') {
      at = i;
      continue;
    }
    size_t begin = i + 1;
    size_t end = begin;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    end = std::min(end, text.size());
    if (text.compare(begin, end - begin, kRedacted) == 0) {
      at = end;
      continue;
    }
    at = ReplaceSpan(text, begin, end);
  }
}

void RedactFormField(std::string& text, std::string_view name) {
  std::string key = std::string(name) + "=";
  size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    bool at_boundary = at == 0 || text[at - 1] == '&' || text[at - 1] == '?' || text[at - 1] == '"' ||
                       std::isspace(static_cast<unsigned char>(text[at - 1]));
    size_t begin = at + key.size();
    if (!at_boundary) {
      at = begin;
      continue;
    }
    size_t end = begin;
    while (end < text.size() && !EndOfFormValue(text[end])) ++end;
    if (end == begin || text.compare(begin, end - begin, kRedacted) == 0) {
      at = end;
      continue;
    }
    at = ReplaceSpan(text, begin, end);
  }
}

void RedactPemKeys(std::string& text) {
  size_t at = 0;
  while ((at = text.find("-----BEGIN ", at)) != std::string::npos) {
    size_t label_end = text.find("-----", at + 11);
    if (label_end == std::string::npos) return;
    std::string_view label(text.data() + at + 11, label_end - at - 11);
    if (label.find("PRIVATE KEY") == std::string_view::npos) {
      at = label_end;
      continue;
    }
    std::string footer = "-----END " + std::string(label) + "-----";
    size_t end = text.find(footer, label_end);
    end = end == std::string::npos ? text.size() : end + footer.size();
    at = ReplaceSpan(text, at, end);
  }
}

constexpr std::array<std::string_view, 6> kJsonFields = {"access_token",  "refresh_token", "id_token",
                                                         "client_secret", "private_key",   "private_key_id"};
constexpr std::array<std::string_view, 4> kFormFields = {"assertion", "refresh_token", "client_secret", "access_token"};

// application/x-www-form-urlencoded, as a token endpoint's request carries a refresh token.
std::string FormEncoded(std::string_view value) {
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// Inside a JSON string: a PEM key's newlines are "\n", a JWT's '/' may be "\/".
std::string JsonEscaped(std::string_view value, bool escape_slash) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '/':
        out += escape_slash ? "\\/" : "/";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void ReplaceAll(std::string& text, const std::string& value) {
  size_t at = 0;
  while ((at = text.find(value, at)) != std::string::npos) at = ReplaceSpan(text, at, at + value.size());
}

}  // namespace

void Redactor::Hold(std::string_view secret) {
  if (secret.size() < kMinHeldLength) return;
  std::lock_guard lock(mutex_);
  for (std::string spelling :
       {std::string(secret), FormEncoded(secret), JsonEscaped(secret, false), JsonEscaped(secret, true)}) {
    if (std::find(held_.begin(), held_.end(), spelling) == held_.end()) held_.push_back(std::move(spelling));
  }
  // Longest first, so a value that contains another is replaced whole.
  std::sort(held_.begin(), held_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

std::string Redactor::operator()(std::string_view input) const {
  // Held values first: a pattern that rewrote part of one would leave the rest unmatched.
  std::string text(input);
  {
    std::lock_guard lock(mutex_);
    for (const auto& value : held_) ReplaceAll(text, value);
  }
  return Redact(text);
}

std::string Redact(std::string_view input) {
  std::string text(input);
  RedactPemKeys(text);
  for (auto field : kJsonFields) RedactJsonField(text, field);
  for (auto field : kFormFields) RedactFormField(text, field);
  RedactAfterPrefix(text, "authorization: ", EndOfLine);
  RedactBearer(text);
  RedactAfterPrefix(text, "ya29.", EndOfToken);
  return text;
}

}  // namespace tputrain::core
