#include "parse_error.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "tputrain/core/text.h"
#include "tputrain/core/utf8.h"

namespace tputrain::cli {
namespace {

struct Rewrite {
  std::regex pattern;
  const char* format;  // std::regex_replace format: $1, $2, ...
};

const std::vector<Rewrite>& Rewrites() {
  static const std::vector<Rewrite> rewrites = {
      // "Could not convert: --num-nodes = abc"
      {std::regex(R"(^Could not convert: (\S+) = (.*)$)"), "$1: expected a number, got '$2'"},
      // "--num-slices: Value 0 not in range 1 to 64"
      {std::regex(R"(^(\S+): Value (.*) not in range ([-0-9.e+]+) to ([-0-9.e+]+)$)"), "$1: expected $3 to $4, got $2"},
      // "--placement-type: X not in {COMPACT}"
      {std::regex(R"(^(\S+): (.*) not in \{(.*)\}$)"), "$1: expected one of $3, got '$2'"},
      // "names is required", "--cluster is required"
      {std::regex(R"(^(\S+) is required$)"), "$1: required (see --help)"},
      // "--model: 1 required TEXT missing"
      {std::regex(R"(^(\S+): \d+ required \S+ missing$)"), "$1: expected a value"},
  };
  return rewrites;
}

}  // namespace

std::string ParseErrorLine(const CLI::ParseError& error) {
  // One line whatever the value held (a newline, an escape sequence, bytes that are not UTF-8).
  std::string message = core::PrintableText(error.what());
  for (const auto& rewrite : Rewrites()) {
    if (std::regex_match(message, rewrite.pattern)) return std::regex_replace(message, rewrite.pattern, rewrite.format);
  }
  return message;
}

void RefuseBadValues(CLI::App& app, const std::vector<std::string>& may_be_empty) {
  static const CLI::Validator kNotEmpty(
      [](std::string& value) { return value.empty() ? std::string("expected a value, got ''") : std::string(); }, "",
      "NOT_EMPTY");
  static const CLI::Validator kUtf8(
      [](std::string& value) {
        return core::IsValidUtf8(value) ? std::string()
                                        : "expected UTF-8 text, got '" + core::PrintableText(value) + "'";
      },
      "", "UTF8");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size() == 0) continue;  // a flag: it takes no value
    option->check(kUtf8);
    if (std::find(may_be_empty.begin(), may_be_empty.end(), option->get_name()) != may_be_empty.end()) continue;
    option->check(kNotEmpty);
  }
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    RefuseBadValues(*command, may_be_empty);
  }
}

const CLI::Validator& ExistingDirectory() {
  static const CLI::Validator kDirectory(
      [](std::string& value) {
        std::error_code error;
        return std::filesystem::is_directory(value, error) ? std::string()
                                                           : "expected an existing directory, got '" + value + "'";
      },
      "DIR", "DIRECTORY");
  return kDirectory;
}

}  // namespace tputrain::cli
