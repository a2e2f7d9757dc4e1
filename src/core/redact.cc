#include "tputrain/core/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <optional>

#include "tputrain/core/base64.h"
#include "tputrain/core/json.h"

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

// Hugging Face user access tokens: "hf_" and 30 or more letters and digits (34 as issued), not
// part of a longer word. A token a process never read (a crashing vLLM container's log printing
// HF_TOKEN=...) is found by its shape.
void RedactHfTokens(std::string& text) {
  constexpr size_t kMinTail = 30;
  size_t at = 0;
  while ((at = text.find("hf_", at)) != std::string::npos) {
    const bool starts_word =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    size_t end = at + 3;
    while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
    at = starts_word && end - at - 3 >= kMinTail ? ReplaceSpan(text, at, end) : end;
  }
}

constexpr std::array<std::string_view, 4> kFormFields = {"assertion", "refresh_token", "client_secret", "access_token"};

// A string's content, between its quotes, in the text scanned.
struct Span {
  size_t begin = 0;
  size_t end = 0;
};

bool IsSecretName(std::string_view name, const std::vector<std::string>& names) {
  for (auto field : kSecretFields) {
    if (name == field) return true;
  }
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Walks text as JSON wherever it looks like JSON, calling `found` with the span of each secret
// value: a string member whose name is secret, and the "value" of an object whose "key" is a
// secret name (read when the object closes, so the two may come in either order). Strings are
// read only inside an object or array, and a raw newline ends one (JSON strings hold none), so
// prose around a body cannot derail it. Iterative, with a bounded stack: any depth is safe.
template <typename Found>
void ScanSecretValues(std::string_view text, const std::vector<std::string>& names, Found found) {
  struct Frame {
    bool object = false;
    bool expect_key = false;
    std::string_view key;
    bool secret_item = false;
    std::optional<Span> value;
  };
  constexpr size_t kMaxFrames = 256;  // deeper levels are skipped whole, counted
  std::vector<Frame> stack;
  size_t skipped = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      if (stack.size() >= kMaxFrames) {
        ++skipped;
      } else {
        stack.push_back(Frame{.object = c == '{', .expect_key = c == '{'});
      }
      continue;
    }
    if (stack.empty()) continue;
    if (c == '}' || c == ']') {
      if (skipped > 0) {
        --skipped;
        continue;
      }
      Frame frame = stack.back();
      stack.pop_back();
      if (frame.object && frame.secret_item && frame.value) found(*frame.value);
      continue;
    }
    if (skipped > 0) {
      if (c == '"') {
        for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; i += text[i] == '\\' ? 2 : 1) {
        }
      }
      continue;
    }
    Frame& top = stack.back();
    if (c == ',' && top.object) {
      top.expect_key = true;
    } else if (c == ':' && top.object) {
      top.expect_key = false;
    } else if (c == '"') {
      Span span{i + 1, i + 1};
      while (span.end < text.size() && text[span.end] != '"' && text[span.end] != '\n') {
        span.end += text[span.end] == '\\' ? 2 : 1;
      }
      span.end = std::min(span.end, text.size());
      i = span.end;
      if (!top.object) continue;
      std::string_view content = text.substr(span.begin, span.end - span.begin);
      if (top.expect_key) {
        top.key = content;
      } else if (IsSecretName(top.key, names)) {
        found(span);
      } else if (top.key == "key") {
        top.secret_item = IsSecretName(content, names);
      } else if (top.key == "value") {
        top.value = span;
      }
    }
  }
}

// JSON's escapes undone; \uXXXX as UTF-8 (a lone surrogate is kept as written).
std::string JsonUnescaped(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    const char e = text[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        unsigned code = 0;
        if (i + 4 >= text.size() || std::sscanf(std::string(text.substr(i + 1, 4)).c_str(), "%4x", &code) != 1 ||
            (code >= 0xD800 && code <= 0xDFFF)) {
          out += "\\u";
          break;
        }
        i += 4;
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xC0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:
        out += e;  // \" \\ \/
    }
  }
  return out;
}

// The patterns of Redact(), with `names` redacted by name as kSecretFields are.
std::string RedactWith(std::string_view input, const std::vector<std::string>& names) {
  std::string text(input);
  RedactPemKeys(text);
  std::vector<Span> spans;
  ScanSecretValues(text, names, [&](Span span) { spans.push_back(span); });
  std::sort(spans.begin(), spans.end(), [](Span a, Span b) { return a.begin > b.begin; });
  size_t limit = std::string::npos;  // spans are disjoint; a repeated one is skipped
  for (Span span : spans) {
    if (span.end > limit || text.compare(span.begin, span.end - span.begin, kRedacted) == 0) continue;
    ReplaceSpan(text, span.begin, span.end);
    limit = span.begin;
  }
  for (auto field : kSecretFields) RedactJsonField(text, field);
  for (const auto& field : names) RedactJsonField(text, field);
  for (auto field : kFormFields) RedactFormField(text, field);
  RedactAfterPrefix(text, "authorization: ", EndOfLine);
  RedactBearer(text);
  RedactAfterPrefix(text, "ya29.", EndOfToken);
  RedactHfTokens(text);
  return text;
}

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

// The values of a Kubernetes Secret's data (base64, and decoded) and stringData.
void SecretDataValues(const nlohmann::json& secret, std::vector<std::string>& values) {
  for (const char* field : {"data", "stringData"}) {
    auto it = secret.find(field);
    if (it == secret.end() || !it->is_object()) continue;
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) continue;
      const auto& text = value.get_ref<const std::string&>();
      values.push_back(text);
      if (std::string_view(field) == "stringData") continue;
      auto decoded = DecodeBase64(text);
      if (!decoded) continue;
      values.push_back(*decoded);
    }
  }
}

// Every Secret in a Kubernetes answer or request: an object of kind Secret at any depth (a GET,
// a watch event's object, an apply body) and the items of a SecretList, which carry no kind.
void FindSecrets(const nlohmann::json& json, std::vector<std::string>& values) {
  if (json.is_array()) {
    for (const auto& item : json) FindSecrets(item, values);
    return;
  }
  if (!json.is_object()) return;
  const auto kind = json.find("kind");
  const bool is_string_kind = kind != json.end() && kind->is_string();
  if (is_string_kind && *kind == "Secret") SecretDataValues(json, values);
  const bool secret_list = is_string_kind && *kind == "SecretList";
  for (const auto& [key, value] : json.items()) {
    if (secret_list && key == "items" && value.is_array()) {
      for (const auto& item : value) {
        if (item.is_object()) SecretDataValues(item, values);
      }
    }
    if (key != "data" && key != "stringData") FindSecrets(value, values);
  }
}

std::vector<std::string> KubernetesSecretValues(std::string_view text) {
  std::vector<std::string> values;
  if (text.find("\"Secret") == std::string_view::npos) return values;  // Secret or SecretList
  auto json = ParseJson(text, "");
  if (json) FindSecrets(*json, values);
  return values;
}

void ReplaceAll(std::string& text, const std::string& value) {
  size_t at = 0;
  while ((at = text.find(value, at)) != std::string::npos) at = ReplaceSpan(text, at, at + value.size());
}

}  // namespace

void Redactor::Hold(std::string_view secret) {
  // A secret read from a file often ends in a newline that no echo of it repeats.
  const auto first = secret.find_first_not_of(" \t\r\n");
  const auto last = secret.find_last_not_of(" \t\r\n");
  if (first != std::string_view::npos && (first > 0 || last + 1 < secret.size())) {
    Hold(secret.substr(first, last + 1 - first));
  }
  if (secret.size() < kMinHeldLength) return;
  std::lock_guard lock(mutex_);
  for (std::string spelling :
       {std::string(secret), FormEncoded(secret), JsonEscaped(secret, false), JsonEscaped(secret, true)}) {
    if (std::find(held_.begin(), held_.end(), spelling) == held_.end()) held_.push_back(std::move(spelling));
  }
  // Longest first, so a value that contains another is replaced whole.
  std::sort(held_.begin(), held_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

void Redactor::HoldField(std::string_view name) {
  std::lock_guard lock(mutex_);
  if (std::find(fields_.begin(), fields_.end(), name) == fields_.end()) fields_.emplace_back(name);
}

void Redactor::HoldSecretsIn(std::string_view json_text) {
  std::vector<std::string> fields;
  {
    std::lock_guard lock(mutex_);
    fields = fields_;
  }
  for (const auto& value : SecretFieldValues(json_text, fields)) {
    if (value != kRedacted) Hold(value);
  }
  for (const auto& value : KubernetesSecretValues(json_text)) {
    if (value != kRedacted) Hold(value);
  }
}

std::string Redactor::operator()(std::string_view input) const {
  // Held values first: a pattern that rewrote part of one would leave the rest unmatched.
  std::string text(input);
  std::vector<std::string> fields;
  {
    std::lock_guard lock(mutex_);
    for (const auto& value : held_) ReplaceAll(text, value);
    fields = fields_;
  }
  return RedactWith(text, fields);
}

std::string Redact(std::string_view input) { return RedactWith(input, {}); }

std::vector<std::string> SecretFieldValues(std::string_view json_text, const std::vector<std::string>& names) {
  std::vector<std::string> values;
  ScanSecretValues(json_text, names, [&](Span span) {
    values.push_back(JsonUnescaped(json_text.substr(span.begin, span.end - span.begin)));
  });
  return values;
}

}  // namespace tputrain::core
