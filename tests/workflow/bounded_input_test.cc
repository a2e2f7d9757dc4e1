// What tputrain reads from servers, files and plugins is bounded in size and depth: each client
// parser takes its usual text, and refuses the same text with one field nested 70,000 deep (the
// issue's request), a text past its size bound, and survives bytes that are not UTF-8.
#include <catch2/catch.hpp>

#include "workflow/client_parsers.h"

namespace tputrain::testing {
namespace {

std::string Deep(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// `sample` with one more field: {"deep": VALUE, ...} or "deep: VALUE\n..." for YAML.
std::string WithField(const ClientParser& parser, const std::string& value) {
  if (parser.yaml) return "deep: " + value + "\n" + parser.sample;
  return "{\"deep\": " + value + ", " + parser.sample.substr(1);
}

TEST_CASE("every client parser takes its text, and refuses it nested 70,000 deep or past its size bound") {
  ParserDir dir;
  const std::string deep = Deep(70'000);
  // 66 MiB of JSON (and of YAML): past core::ParseJson's 64 MiB and yaml::Limits' 32 MiB.
  std::string large = "[";
  large.reserve(66 * 1024 * 1024 + 16);
  while (large.size() < 66 * 1024 * 1024) large += "0,0,0,0,0,0,0,0,";
  large += "0]";
  // A billion laughs: ten aliases deep, each ten times the last.
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) laughs += ", " + prev;
    laughs += "]\n";
  }
  for (const auto& parser : ClientParsers(dir)) {
    INFO(parser.name);
    if (!parser.sample.empty()) {
      CHECK(parser.accepts(parser.sample));
      CHECK(parser.accepts(WithField(parser, Deep(20))));  // what real answers nest
      CHECK_FALSE(parser.accepts(WithField(parser, deep)));
      if (!parser.takes_large) CHECK_FALSE(parser.accepts(WithField(parser, large)));
    }
    CHECK_FALSE(parser.accepts(deep));
    if (!parser.takes_large) CHECK_FALSE(parser.accepts(large));
    if (parser.yaml) CHECK_FALSE(parser.accepts(laughs));
    // Not UTF-8, and terminal controls: refused or taken, never a crash.
    parser.accepts("{\"name\": \"\xff\xfe\x1b[2J\", \"items\": [\"\xc3\"]}");
    parser.accepts(std::string("\0\0\0\x80", 4));
  }
}

}  // namespace
}  // namespace tputrain::testing
