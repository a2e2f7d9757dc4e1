#include "substitute.h"

#include <algorithm>

namespace tputrain::render {
namespace {

// envsubst uses the C locale's character classes: ASCII only.
bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

// A default word may hold references of its own; this bounds the recursion a hostile
// template could ask for.
constexpr int kMaxNesting = 32;

// The '}' that closes a word starting at `pos`, skipping nested `${...}`; npos when none.
std::size_t FindWordEnd(std::string_view text, std::size_t pos) {
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      ++depth;
      ++i;
    } else if (text[i] == '}') {
      if (depth == 0) return i;
      --depth;
    }
  }
  return std::string_view::npos;
}

int CountLines(std::string_view text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

class Expander {
 public:
  Expander(const Lookup& lookup, std::string_view source, bool collect_only)
      : lookup_(lookup), source_(source), collect_only_(collect_only) {}

  // Appends the expansion of `text` (which starts on `line`) to `out`; records top-level spans
  // only when `spans` is given.
  core::Status Expand(std::string_view text, int line, int depth, std::string& out, std::vector<Span>* spans) {
    if (depth > kMaxNesting) {
      return core::Fail(core::Error::Usage(std::string(source_) + ":" + std::to_string(line) +
                                           ": default values nested more than " + std::to_string(kMaxNesting) +
                                           " deep"));
    }
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n; ++i) {
      const char c = text[i];
      if (c != '$') {
        if (c == '\n') ++line;
        out += c;
        continue;
      }
      std::size_t j = i + 1;
      const bool brace = j < n && text[j] == '{';
      if (brace) ++j;
      if (j >= n || !IsNameStart(text[j])) {
        out.append(text.substr(i, j - i));  // "$" or "${": not a reference, as envsubst leaves it
        i = j - 1;
        continue;
      }
      std::size_t k = j;
      while (k < n && IsNameChar(text[k])) ++k;
      const std::string name(text.substr(j, k - j));
      const std::size_t begin = out.size();
      if (!brace || (k < n && text[k] == '}')) {
        out += Value(name, line);
        if (spans) spans->push_back({name, begin, out.size(), line});
        i = brace ? k : k - 1;
        continue;
      }
      const bool shell_form = k + 1 < n && text[k] == ':' && (text[k + 1] == '-' || text[k + 1] == '?');
      const std::size_t end = shell_form ? FindWordEnd(text, k + 2) : std::string_view::npos;
      if (end == std::string_view::npos) {
        out.append(text.substr(i, j - i));  // "${NAME" without its brace stays literal
        i = j - 1;
        continue;
      }
      const std::string_view word = text.substr(k + 2, end - (k + 2));
      const auto value = lookup_(name);
      if (value && !value->empty()) {
        out += *value;
      } else if (text[k + 1] == '-') {
        if (collect_only_) missing_.push_back({name, line});
        auto status = Expand(word, line, depth + 1, out, nullptr);
        if (!status) return status;
      } else if (collect_only_) {
        missing_.push_back({name, line});
        std::string ignored;
        auto status = Expand(word, line, depth + 1, ignored, nullptr);
        if (!status) return status;
      } else {
        std::string message;
        auto status = Expand(word, line, depth + 1, message, nullptr);
        if (!status) return status;
        if (message.empty()) message = "a value is required";
        return core::Fail(
            core::Error::Usage(std::string(source_) + ":" + std::to_string(line) + ": " + name + ": " + message));
      }
      if (spans) spans->push_back({name, begin, out.size(), line});
      line += CountLines(text.substr(i, end - i));
      i = end;
    }
    return {};
  }

  std::vector<Reference>& missing() { return missing_; }

 private:
  std::string Value(const std::string& name, int line) {
    auto value = lookup_(name);
    if (value) return *value;
    missing_.push_back({name, line});
    return {};
  }

  const Lookup& lookup_;
  std::string_view source_;
  bool collect_only_;
  std::vector<Reference> missing_;
};

}  // namespace

core::Result<Substituted> Substitute(std::string_view text, const Lookup& lookup, std::string_view source) {
  Expander expander(lookup, source, /*collect_only=*/false);
  Substituted result;
  result.text.reserve(text.size());
  auto status = expander.Expand(text, 1, 0, result.text, &result.spans);
  if (!status) return core::Fail(std::move(status).error());
  result.missing = std::move(expander.missing());
  return result;
}

std::vector<Reference> References(std::string_view text) {
  const Lookup none = [](const std::string&) { return std::optional<std::string>(); };
  Expander expander(none, "", /*collect_only=*/true);
  std::string ignored;
  auto status = expander.Expand(text, 1, 0, ignored, nullptr);
  (void)status;  // only nesting can fail here; what was collected up to that point stands
  return std::move(expander.missing());
}

std::string PlaceholderFor(std::size_t index) { return "tputrainvalue" + std::to_string(index) + "x"; }

std::string WithPlaceholders(const Substituted& substituted) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < substituted.spans.size(); ++i) {
    const Span& span = substituted.spans[i];
    out.append(substituted.text, at, span.begin - at);
    out += PlaceholderFor(i);
    at = span.end;
  }
  out.append(substituted.text, at, std::string::npos);
  return out;
}

}  // namespace tputrain::render
