#include "stack_yaml.h"

#include <regex>

#include "tputrain/core/utf8.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::workflow::internal {
namespace {

using nlohmann::json;

core::Error Bad(const std::string& file, int line, const std::string& path, const std::string& message) {
  return core::Error::Usage(Where(file, line, path, message));
}

bool IsVariableName(std::string_view name) {
  if (name.empty() || (std::isdigit(static_cast<unsigned char>(name[0])) != 0)) return false;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

// ${VAR}, ${VAR:-default} and $${ in one scalar.
core::Result<std::string> Substitute(const std::string& text, const core::Env& env, const std::string& file, int line,
                                     const std::string& path) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    // Its '}', past those of the ${...} its default may hold.
    size_t close = i + 2;
    for (int depth = 1; close < text.size(); ++close) {
      if (text.compare(close, 2, "${") == 0) {
        ++depth;
        ++close;
      } else if (text[close] == '}' && --depth == 0) {
        break;
      }
    }
    if (close >= text.size()) {
      return core::Fail(Bad(file, line, path, "'${' without its '}' (a literal ${ is written $${)"));
    }
    const std::string inside = text.substr(i + 2, close - i - 2);
    const size_t dash = inside.find(":-");
    const std::string name = inside.substr(0, dash);
    if (!IsVariableName(name)) {
      return core::Fail(
          Bad(file, line, path,
              "'${" + inside + "}': expected ${NAME} or ${NAME:-default}, NAME of letters, digits and _"));
    }
    auto value = env.Get(name);
    if (!value) {
      if (dash == std::string::npos) {
        return core::Fail(
            Bad(file, line, path, "${" + name + "} is not set (set it, or write ${" + name + ":-default})"));
      }
      auto fallback = Substitute(inside.substr(dash + 2), env, file, line, path);
      if (!fallback) return fallback;
      value = std::move(*fallback);
    }
    if (value->find('\n') != std::string::npos || value->find('\r') != std::string::npos) {
      return core::Fail(Bad(file, line, path, "${" + name + "} holds a newline"));
    }
    out += *value;
    i = close + 1;
  }
  return out;
}

bool HasControl(std::string_view text, bool multiline) {
  for (unsigned char c : text) {
    if (multiline && (c == '\n' || c == '\t')) continue;
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// YAML 1.2's core schema for a plain scalar: null, booleans, integers; the rest is a string.
json TypedPlain(const std::string& text) {
  static const std::regex kInteger("^[-+]?[0-9]+$");
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (std::regex_match(text, kInteger) && text.size() <= 18) return std::stoll(text);
  return text;
}

struct Converter {
  const std::string& file;
  const core::Env& env;
  const std::string& multiline_under;
  LocatedJson& out;

  core::Result<json> Convert(const YAML::Node& node, const std::string& path) {
    const int line = node.Mark().is_null() ? 0 : node.Mark().line + 1;
    if (line > 0) out.lines[path] = line;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return json(nullptr);
      case YAML::NodeType::Scalar:
        return Scalar(node, path, line);
      case YAML::NodeType::Sequence: {
        json list = json::array();
        for (size_t i = 0; i < node.size(); ++i) {
          auto item = Convert(node[i], ItemPath(path, i));
          if (!item) return item;
          list.push_back(std::move(*item));
        }
        return list;
      }
      case YAML::NodeType::Map: {
        json object = json::object();
        for (const auto& item : node) {
          if (!item.first.IsScalar()) return core::Fail(Bad(file, line, path, "a key must be a plain word"));
          const std::string key = item.first.Scalar();
          const std::string child = ChildPath(path, key);
          if (!core::IsValidUtf8(key) || HasControl(key, false)) {
            return core::Fail(Bad(file, item.first.Mark().line + 1, path, "a key that is not printable UTF-8"));
          }
          if (object.contains(key)) {
            return core::Fail(Bad(file, item.first.Mark().line + 1, child, "given twice"));
          }
          auto value = Convert(item.second, child);
          if (!value) return value;
          if (out.lines.count(child) == 0) out.lines[child] = item.first.Mark().line + 1;
          // `key:` with nothing, or a ${VAR:-} that is empty: not given, as an unset flag.
          if (value->is_null()) continue;
          object[key] = std::move(*value);
        }
        return object;
      }
    }
    return json(nullptr);
  }

  core::Result<json> Scalar(const YAML::Node& node, const std::string& path, int line) {
    const std::string& raw = node.Scalar();
    const bool multiline = !multiline_under.empty() && path.rfind(multiline_under, 0) == 0;
    if (!core::IsValidUtf8(raw)) return core::Fail(Bad(file, line, path, "not UTF-8"));
    if (HasControl(raw, multiline)) {
      return core::Fail(Bad(file, line, path, "a control character (a newline?) in a value"));
    }
    auto text = Substitute(raw, env, file, line, path);
    if (!text) return core::Fail(text.error());
    if (!core::IsValidUtf8(*text) || HasControl(*text, false)) {
      return core::Fail(Bad(file, line, path, "a variable's value that is not printable UTF-8"));
    }
    // "!" is yaml-cpp's tag of a quoted scalar: a string whatever it holds.
    if (node.Tag() == "!") return json(*text);
    return TypedPlain(*text);
  }
};

}  // namespace

std::string Where(const std::string& file, int line, const std::string& path, const std::string& message) {
  return file + ":" + std::to_string(line) + ": " + (path.empty() ? "" : path + ": ") + message;
}

std::string ChildPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string ItemPath(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

int LocatedJson::LineOf(const std::string& path) const {
  std::string at = path;
  while (true) {
    if (auto it = lines.find(at); it != lines.end()) return it->second;
    const size_t cut = at.find_last_of(".[");
    if (cut == std::string::npos) return lines.count("") != 0 ? lines.at("") : 1;
    at = at.substr(0, cut);
  }
}

core::Result<LocatedJson> LoadLocatedYaml(std::string_view text, const std::string& file, const core::Env& env,
                                          const std::string& multiline_under) {
  yaml::Limits limits{kStackFileMaxBytes, kStackFileMaxNodes, kStackFileMaxDepth};
  auto document = yaml::Load(text, file, limits);
  if (!document) {
    core::Error error = document.error();
    // ${VAR} inside [ ] or { } reads as YAML's own braces: the usual cause of a flow error.
    if (error.message.find(" flow ") != std::string::npos && text.find("${") != std::string_view::npos) {
      error.message += " (a ${VAR} inside [ ] or { } needs quotes, or a block list)";
    }
    return core::Fail(error);
  }
  LocatedJson out;
  Converter converter{file, env, multiline_under, out};
  auto value = converter.Convert(*document, "");
  if (!value) return core::Fail(value.error());
  out.value = std::move(*value);
  return out;
}

}  // namespace tputrain::workflow::internal
