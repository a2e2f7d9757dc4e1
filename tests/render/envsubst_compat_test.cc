// The renderer against GNU envsubst (gettext-base), run side by side on the same inputs and
// environment. The only differences are documented: ${NAME:-word} and ${NAME:?word} (which
// envsubst leaves as written) and strictness (envsubst renders a missing name as ""; the
// renderer renders "" too but reports it, and `tputrain render` refuses to print).
#include <filesystem>
#include <map>
#include <random>
#include <regex>

#include <catch2/catch.hpp>

#include "substitute.h"
#include "testing/scoped_process.h"

namespace {

constexpr const char* kEnvsubst = "/usr/bin/envsubst";

// The child's whole environment (env -i), so the lookup below sees exactly what envsubst sees.
const std::map<std::string, std::string>& Environment() {
  static const std::map<std::string, std::string> env = {
      {"A", "x"},        {"AB", "long"},         {"A_1", "under"},      {"_", "underscore"},
      {"EMPTY", ""},     {"SPACE", "a b"},       {"DOLLAR", "$A ${A}"}, {"NL", "line1\nline2"},
      {"QUOTE", "\"q'"}, {"UTF", "caf\xc3\xa9"}, {"BRACE", "}{"},       {"lower", "lo"},
  };
  return env;
}

std::string Envsubst(const std::string& input) {
  std::vector<std::string> argv = {"/usr/bin/env", "-i"};
  for (const auto& [name, value] : Environment()) argv.push_back(name + "=" + value);
  argv.push_back(kEnvsubst);
  auto result = tputrain::testing::RunProcess({.argv = argv, .stdin_text = input});
  REQUIRE(result.exit_code == 0);
  return result.out;
}

std::string Ours(const std::string& input) {
  const tputrain::render::Lookup lookup = [](const std::string& name) -> std::optional<std::string> {
    auto it = Environment().find(name);
    if (it == Environment().end()) return std::nullopt;
    return it->second;
  };
  auto out = tputrain::render::Substitute(input, lookup, "corpus");
  REQUIRE(out);
  return out->text;
}

// The forms this renderer expands on purpose and envsubst does not.
bool UsesShellForm(const std::string& input) {
  static const std::regex shell_form(R"(\$\{[A-Za-z_][A-Za-z0-9_]*:[-?])");
  return std::regex_search(input, shell_form);
}

}  // namespace

TEST_CASE("GNU envsubst is installed (gettext-base, scripts/install-deps.sh)") {
  REQUIRE(std::filesystem::exists(kEnvsubst));
}

TEST_CASE("the renderer agrees with GNU envsubst on a corpus of tricky inputs") {
  const std::vector<std::string> corpus = {
      "",
      "plain text, no dollar",
      "$A ${A} $AB ${AB} $A_1 $_ ${_}",
      "$A$A$A ${A}${A} $A-$A $A.$A $A/$A",
      "$ABC $A_ ${A_1}x $A1",
      "$$A $$ $$$ ${A}$",
      "trailing dollar $",
      "${} ${ } ${ A} ${A } ${1} $1 $0 $@ $* $# $? $- $!",
      "$(A) $(LWS_LEADER_ADDRESS):38677 $((1+2))",
      "\\$A \\${A} '$A' \"${A}\"",
      "${A ${A:x} ${A-x} ${A=x} ${A+x} ${A#x} ${A%x} ${#A}",
      "${A",
      "${",
      "{$A} {{${A}}} }${A}{",
      "${A}}",
      "$\n${\n$A\n${A\n}",
      "unset: [$NOPE] [${NOPE}] [$NOPE_2]",
      "empty: [$EMPTY] [${EMPTY}]",
      "$SPACE|$DOLLAR|$NL|$QUOTE|$BRACE",
      "values are not rescanned: $DOLLAR",
      "$UTF caf\xc3\xa9 $A\xc3\xa9 \xc3\xa9$A ${A}\xc3\xa9",
      "$lower ${lower} $Lower",
      "tab\t$A\ttab\r\n$A\r\n",
      std::string("nul\0byte $A", 12),
      "image: \"${A}\"\n  - --flag=$(X):1\n  value: '$A'\n",
      "$A:$A ${A}:${A} $A::$A",
  };
  for (const auto& input : corpus) {
    INFO("input: " << input);
    CHECK(Ours(input) == Envsubst(input));
  }
}

TEST_CASE("the renderer agrees with GNU envsubst on random inputs") {
  // Seeded so a failure reproduces; the alphabet is dense in what the parser branches on.
  std::mt19937 random(20261123);
  const std::vector<std::string> pieces = {"$",        "$",     "{",    "}",     "A",  "B",  "_",    "1",  "x",  "AB",
                                           ":",        "-",     "?",    "(",     ")",  " ",  "\n",   "\\", "\"", "'",
                                           "\xc3\xa9", "EMPTY", "NOPE", "lower", "$$", "${", "${A}", "$A", "#",  "="};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> length(0, 24);
  int compared = 0;
  for (int i = 0; i < 300; ++i) {
    std::string input;
    for (int n = length(random); n > 0; --n) input += pieces[pick(random)];
    if (UsesShellForm(input)) continue;
    INFO("input: " << input);
    CHECK(Ours(input) == Envsubst(input));
    ++compared;
  }
  CHECK(compared > 200);
}

TEST_CASE("documented difference: shell default forms expand here and stay literal in envsubst") {
  const std::string input = "${NOPE:-fallback} ${A:-fallback}";
  CHECK(Envsubst(input) == input);
  CHECK(Ours(input) == "fallback x");
}
