#include <map>

#include <catch2/catch.hpp>

#include "substitute.h"

using tputrain::render::Lookup;
using tputrain::render::References;
using tputrain::render::Substitute;
using tputrain::render::WithPlaceholders;

namespace {

Lookup From(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("both envsubst forms expand and other dollar text stays as written") {
  auto out = Substitute("a=$A b=${A}c $(LWS_LEADER_ADDRESS) ${ A} $1 $ ${A", From({{"A", "x"}}), "t");
  REQUIRE(out);
  CHECK(out->text == "a=x b=xc $(LWS_LEADER_ADDRESS) ${ A} $1 $ ${A");
  CHECK(out->missing.empty());
}

TEST_CASE("a missing name is collected with every line that uses it, and renders empty") {
  auto out = Substitute("one\nname: ${KSA}\nimage: $IMAGE\nsa: ${KSA}\n", From({}), "t");
  REQUIRE(out);
  CHECK(out->text == "one\nname: \nimage: \nsa: \n");
  REQUIRE(out->missing.size() == 3);
  CHECK(out->missing[0].name == "KSA");
  CHECK(out->missing[0].line == 2);
  CHECK(out->missing[1].name == "IMAGE");
  CHECK(out->missing[1].line == 3);
  CHECK(out->missing[2].line == 4);
}

TEST_CASE("an empty value is a value, not a missing one") {
  auto out = Substitute("[${E}]", From({{"E", ""}}), "t");
  REQUIRE(out);
  CHECK(out->text == "[]");
  CHECK(out->missing.empty());
}

TEST_CASE("${NAME:-word} uses the word when the name is unset or empty, expanding it") {
  auto lookup = From({{"SET", "v"}, {"EMPTY", ""}, {"B", "bucket"}});
  CHECK(Substitute("${SET:-d}", lookup, "t")->text == "v");
  CHECK(Substitute("${EMPTY:-d}", lookup, "t")->text == "d");
  CHECK(Substitute("${UNSET:-gs://${B}/tmp}", lookup, "t")->text == "gs://bucket/tmp");
  CHECK(Substitute("${UNSET:-${ALSO:-deep}}", lookup, "t")->text == "deep");
  CHECK(Substitute("${UNSET:-}", lookup, "t")->text.empty());
  auto out = Substitute("${UNSET:-x}", lookup, "t");
  CHECK(out->missing.empty());
}

TEST_CASE("${NAME:?message} fails with the file, line, name and message") {
  auto out = Substitute("a\nb: ${TOKEN:?set TOKEN to the signed URL}\n", From({}), "job.yaml");
  REQUIRE_FALSE(out);
  CHECK(out.error().message == "job.yaml:2: TOKEN: set TOKEN to the signed URL");
  CHECK(tputrain::core::IsUsageError(out.error()));
  CHECK(Substitute("${TOKEN:?m}", From({{"TOKEN", "t"}}), "t")->text == "t");
  auto empty_message = Substitute("${TOKEN:?}", From({}), "t");
  REQUIRE_FALSE(empty_message);
  CHECK_THAT(empty_message.error().message, Catch::Contains("a value is required"));
}

TEST_CASE("a shell form without its closing brace stays literal, as envsubst leaves it") {
  auto out = Substitute("${A:-x", From({{"A", "v"}}), "t");
  REQUIRE(out);
  CHECK(out->text == "${A:-x");
}

TEST_CASE("line numbers count the newlines inside a default word") {
  auto out = Substitute("${U:-a\nb}\n$M", From({}), "t");
  REQUIRE(out);
  CHECK(out->text == "a\nb\n");
  REQUIRE(out->missing.size() == 1);
  CHECK(out->missing[0].line == 3);
}

TEST_CASE("spans record where each top-level value landed") {
  auto out = Substitute("x: ${A}\ny: $B-${C:-z}\n", From({{"A", "1"}, {"B", "two"}}), "t");
  REQUIRE(out);
  REQUIRE(out->spans.size() == 3);
  CHECK(out->text.substr(out->spans[0].begin, out->spans[0].end - out->spans[0].begin) == "1");
  CHECK(out->spans[1].name == "B");
  CHECK(out->spans[2].name == "C");
  CHECK(out->text.substr(out->spans[2].begin, out->spans[2].end - out->spans[2].begin) == "z");
  CHECK(WithPlaceholders(*out) == "x: tputrainvalue0x\ny: tputrainvalue1x-tputrainvalue2x\n");
}

TEST_CASE("References lists every name, those inside default words too") {
  auto refs = References("a: ${A}\nb: ${B:-gs://${C}}\nc: ${D:?need D}\n$(E) $$F");
  std::vector<std::string> names;
  for (const auto& ref : refs) names.push_back(ref.name);
  CHECK(names == std::vector<std::string>{"A", "B", "C", "D", "F"});
}

TEST_CASE("nesting beyond the limit is an error, not a stack overflow") {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "${A:-";
  text += "x";
  for (int i = 0; i < 5000; ++i) text += "}";
  auto out = Substitute(text, From({}), "deep.yaml");
  REQUIRE_FALSE(out);
  CHECK_THAT(out.error().message, Catch::Contains("nested more than"));
}
