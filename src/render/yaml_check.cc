#include "yaml_check.h"

#include "yaml_documents.h"

#include <set>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace tputrain::render {
namespace {

constexpr std::string_view kPlaceholderPrefix = "tputrainvalue";
constexpr int kMaxDepth = 200;

struct Checker {
  std::string_view file;
  const Substituted& rendered;
  const std::function<ValueType(const std::string&)>& type_of;

  core::Error Fail(int line, const std::string& what) const {
    core::Error error =
        core::Error::Usage(std::string(file) + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
    error.where = std::string(file);
    return error;
  }

  // Placeholder indices in a scalar of the placeholder rendering, in order.
  static std::vector<std::size_t> Placeholders(const std::string& text) {
    std::vector<std::size_t> found;
    std::size_t at = 0;
    while ((at = text.find(kPlaceholderPrefix, at)) != std::string::npos) {
      std::size_t i = at + kPlaceholderPrefix.size();
      std::size_t index = 0;
      const std::size_t digits = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        index = index * 10 + static_cast<std::size_t>(text[i++] - '0');
      if (i > digits && i < text.size() && text[i] == 'x') found.push_back(index);
      at = i;
    }
    return found;
  }

  std::string ValueOf(std::size_t index) const {
    const Span& span = rendered.spans.at(index);
    return rendered.text.substr(span.begin, span.end - span.begin);
  }

  std::string Blame(const std::vector<std::size_t>& indices) const {
    std::string out;
    for (std::size_t index : indices) {
      if (index >= rendered.spans.size()) continue;
      if (!out.empty()) out += ", ";
      out += "${" + rendered.spans[index].name + "}=\"" + ValueOf(index) + "\" (template line " +
             std::to_string(rendered.spans[index].line) + ")";
    }
    return out.empty() ? "the template itself" : out;
  }

  std::string Expected(const std::string& placeholder_scalar) const {
    std::string out;
    std::size_t at = 0;
    for (std::size_t index : Placeholders(placeholder_scalar)) {
      const std::string token = PlaceholderFor(index);
      const std::size_t pos = placeholder_scalar.find(token, at);
      out.append(placeholder_scalar, at, pos - at);
      out += index < rendered.spans.size() ? ValueOf(index) : token;
      at = pos + token.size();
    }
    out.append(placeholder_scalar, at, std::string::npos);
    return out;
  }

  // Every placeholder anywhere under a node: whose values could have changed its shape.
  static void Collect(const YAML::Node& node, std::vector<std::size_t>& out, int depth = 0) {
    if (depth > kMaxDepth) return;
    if (node.IsScalar()) {
      for (auto index : Placeholders(node.Scalar())) out.push_back(index);
    } else if (node.IsSequence()) {
      for (const auto& item : node) Collect(item, out, depth + 1);
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        Collect(entry.first, out, depth + 1);
        Collect(entry.second, out, depth + 1);
      }
    }
  }

  // Marks are relative to the document's own text (see LoadYamlDocuments).
  mutable int line_offset = 0;
  int LineOf(const YAML::Node& node) const { return node.Mark().is_null() ? 0 : line_offset + node.Mark().line + 1; }

  core::Status Scalar(const YAML::Node& actual, const YAML::Node& shape) const {
    const std::string& placeholder_text = shape.Scalar();
    const auto indices = Placeholders(placeholder_text);
    if (indices.empty()) return {};
    const std::string expected = Expected(placeholder_text);
    if (actual.Scalar() != expected) {
      return core::Fail(Fail(LineOf(actual), "a value changes the YAML around it: " + Blame(indices) +
                                                 "; quote the reference in the template or drop the quote, "
                                                 "backslash or newline from the value"));
    }
    if (shape.Tag() != "?" || actual.Tag() != "?") return {};  // quoted: always a string
    const PlainKind kind = ResolvePlain(actual.Scalar());
    const bool whole = indices.size() == 1 && placeholder_text == PlaceholderFor(indices[0]);
    const ValueType wanted = whole ? type_of(rendered.spans[indices[0]].name) : ValueType::kString;
    const PlainKind want_kind = wanted == ValueType::kInt    ? PlainKind::kInt
                                : wanted == ValueType::kBool ? PlainKind::kBool
                                                             : PlainKind::kString;
    if (kind == want_kind) return {};
    return core::Fail(
        Fail(LineOf(actual),
             "YAML would read \"" + actual.Scalar() + "\" as " + std::string(PlainKindName(kind)) + ", not " +
                 std::string(PlainKindName(want_kind)) + ": " + Blame(indices) +
                 (want_kind == PlainKind::kString ? "; quote the reference in the template (\"${NAME}\")" : "")));
  }

  core::Status Compare(const YAML::Node& actual, const YAML::Node& shape, int depth = 0) const {
    // An anchor aliased inside itself makes yaml-cpp build a cycle; no manifest nests this deep.
    if (depth > kMaxDepth) return core::Fail(Fail(LineOf(actual), "YAML nested deeper than 200 levels"));
    if (actual.IsNull() && shape.IsScalar() && shape.Tag() == "?" && !Placeholders(shape.Scalar()).empty()) {
      return core::Fail(Fail(LineOf(actual),
                             "YAML would read the value as null, not a string: " + Blame(Placeholders(shape.Scalar())) +
                                 "; quote the reference in the template (\"${NAME}\")"));
    }
    if (actual.Type() != shape.Type() || (actual.IsSequence() && actual.size() != shape.size()) ||
        (actual.IsMap() && actual.size() != shape.size())) {
      std::vector<std::size_t> indices;
      Collect(shape, indices);
      return core::Fail(Fail(LineOf(actual), "a value changes the structure of the YAML: " + Blame(indices)));
    }
    if (actual.IsScalar()) return Scalar(actual, shape);
    if (actual.IsSequence()) {
      for (std::size_t i = 0; i < actual.size(); ++i) {
        auto status = Compare(actual[i], shape[i], depth + 1);
        if (!status) return status;
      }
      return {};
    }
    if (!actual.IsMap()) return {};
    std::set<std::string> keys;
    auto shape_entry = shape.begin();
    for (auto entry = actual.begin(); entry != actual.end(); ++entry, ++shape_entry) {
      if (entry->first.IsScalar() && !keys.insert(entry->first.Scalar()).second) {
        return core::Fail(Fail(LineOf(entry->first), "duplicate key '" + entry->first.Scalar() + "'"));
      }
      auto status = Compare(entry->first, shape_entry->first, depth + 1);
      if (!status) return status;
      status = Compare(entry->second, shape_entry->second, depth + 1);
      if (!status) return status;
    }
    return {};
  }

  core::Status Object(const YAML::Node& document, std::size_t index) const {
    const std::string which = "document " + std::to_string(index + 1);
    if (!document.IsMap()) return core::Fail(Fail(LineOf(document), which + " is not a mapping (a Kubernetes object)"));
    for (const char* field : {"apiVersion", "kind"}) {
      const YAML::Node value = document[field];
      if (!value || !value.IsScalar() || value.Scalar().empty()) {
        return core::Fail(Fail(LineOf(document), which + " has no " + field));
      }
    }
    const YAML::Node metadata = document["metadata"];
    if (!metadata || !metadata.IsMap() || !metadata["name"] || !metadata["name"].IsScalar() ||
        metadata["name"].Scalar().empty()) {
      return core::Fail(Fail(LineOf(document), which + " (" + document["kind"].Scalar() + ") has no metadata.name"));
    }
    return {};
  }

  // Spans whose rendered text touches `line` (1-based, rendered coordinates) or the line before.
  std::vector<std::size_t> SpansNear(int line) const {
    std::vector<std::size_t> found;
    int current = 1;
    std::size_t line_start = 0;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (std::size_t i = 0; i <= rendered.text.size(); ++i) {
      if (i == rendered.text.size() || rendered.text[i] == '\n') {
        if (current == line || current == line - 1) ranges.push_back({line_start, i + 1});
        ++current;
        line_start = i + 1;
      }
    }
    for (std::size_t s = 0; s < rendered.spans.size(); ++s) {
      for (const auto& [begin, end] : ranges) {
        if (rendered.spans[s].begin < end && rendered.spans[s].end >= begin) {
          found.push_back(s);
          break;
        }
      }
    }
    return found;
  }

  core::Status Run() const {
    std::vector<YamlDocument> shape;
    YamlLoadError error;
    if (!LoadYamlDocuments(WithPlaceholders(rendered), shape, error)) {
      return core::Fail(Fail(error.line, "the template is not valid YAML: " + error.message));
    }
    std::vector<YamlDocument> actual;
    if (!LoadYamlDocuments(rendered.text, actual, error)) {
      return core::Fail(Fail(error.line, "the rendered YAML does not parse (" + error.message +
                                             "); values near there: " + Blame(SpansNear(error.line))));
    }
    if (actual.size() != shape.size()) {
      std::vector<std::size_t> all;
      for (std::size_t i = 0; i < rendered.spans.size(); ++i) all.push_back(i);
      return core::Fail(Fail(0, "a value adds or removes YAML documents: " + Blame(all)));
    }
    std::size_t objects = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      line_offset = actual[i].first_line;
      auto status = Compare(actual[i].node, shape[i].node);
      if (!status) return status;
      if (actual[i].node.IsNull()) continue;  // an empty document between two "---" is allowed
      status = Object(actual[i].node, i);
      if (!status) return status;
      ++objects;
    }
    if (objects == 0) return core::Fail(Fail(0, "no Kubernetes object in the rendered file"));
    return {};
  }
};

// Hand-written rather than std::regex: libstdc++'s regex recurses per character, and a
// rendered scalar can be as long as a value someone passes.
bool AllOf(std::string_view text, std::string_view allowed, bool need_digit = true) {
  bool digit = false;
  for (char c : text) {
    if (allowed.find(c) == std::string_view::npos) return false;
    digit = digit || c != '_';
  }
  return !text.empty() && (digit || !need_digit);
}

std::string_view StripSign(std::string_view text) {
  return (!text.empty() && (text[0] == '-' || text[0] == '+')) ? text.substr(1) : text;
}

bool IsPlainInteger(std::string_view scalar) {
  const std::string_view text = StripSign(scalar);
  if (text.size() > 2 && text[0] == '0' && text[1] == 'b') return AllOf(text.substr(2), "01_");
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') return AllOf(text.substr(2), "0123456789abcdefABCDEF_");
  if (text.size() > 2 && text[0] == '0' && text[1] == 'o') return AllOf(text.substr(2), "01234567_");
  if (text.size() > 1 && text[0] == '0') return AllOf(text, "01234567_");  // YAML 1.1 octal
  return !text.empty() && text[0] >= '0' && text[0] <= '9' && AllOf(text, "0123456789_");
}

bool IsPlainFloat(std::string_view scalar) {
  if (scalar == ".nan" || scalar == ".NaN" || scalar == ".NAN") return true;
  std::string_view text = StripSign(scalar);
  if (text == ".inf" || text == ".Inf" || text == ".INF") return true;
  const std::size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    const std::string_view exponent = StripSign(text.substr(e + 1));
    if (!AllOf(exponent, "0123456789") || exponent.find('_') != std::string_view::npos) return false;
    text = text.substr(0, e);
  }
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return !text.empty() && text[0] != '_' && AllOf(text, "0123456789_");
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = text.substr(dot + 1);
  if (whole.empty()) return !fraction.empty() && AllOf(fraction, "0123456789_");
  return whole[0] != '_' && AllOf(whole, "0123456789_") && (fraction.empty() || AllOf(fraction, "0123456789_", false));
}

}  // namespace

PlainKind ResolvePlain(std::string_view scalar) {
  static const std::set<std::string_view> nulls = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string_view> bools = {"y",  "Y",  "yes",  "Yes",  "YES",  "n",     "N",     "no",
                                                   "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
                                                   "on", "On", "ON",   "off",  "Off",  "OFF"};
  if (nulls.count(scalar)) return PlainKind::kNull;
  if (bools.count(scalar)) return PlainKind::kBool;
  if (IsPlainInteger(scalar)) return PlainKind::kInt;
  if (IsPlainFloat(scalar)) return PlainKind::kFloat;
  return PlainKind::kString;
}

std::string_view PlainKindName(PlainKind kind) {
  switch (kind) {
    case PlainKind::kNull:
      return "null";
    case PlainKind::kBool:
      return "a boolean";
    case PlainKind::kInt:
      return "an integer";
    case PlainKind::kFloat:
      return "a number";
    case PlainKind::kString:
      break;
  }
  return "a string";
}

core::Status CheckRenderedYaml(std::string_view file, const Substituted& rendered,
                               const std::function<ValueType(const std::string&)>& type_of) {
  return Checker{file, rendered, type_of}.Run();
}

}  // namespace tputrain::render
