#include <catch2/catch.hpp>

#include <string>

#include "tputrain/core/json.h"

using tputrain::core::JsonLimits;
using tputrain::core::ParseJson;
using tputrain::core::ScanJson;

namespace {

std::string Nested(char open, char close, size_t depth) {
  std::string text(depth, open);
  text.append(depth, close);
  return text;
}

// {"a":{"a":...{}...}}
std::string NestedObjects(size_t depth) {
  std::string text;
  for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
  text += "{}";
  text.append(depth, '}');
  return text;
}

}  // namespace

TEST_CASE("ParseJson parses what fits the limits", "[unit]") {
  auto value = ParseJson(R"({"name": "a", "items": [1, [2, {"k": null}]], "s": "[[[{{{\"]]]"})", "x");
  REQUIRE(value);
  CHECK((*value)["items"][1][1]["k"].is_null());
  CHECK((*value)["s"] == "[[[{{{\"]]]");
  auto exact = ParseJson(Nested('[', ']', 256), "x");
  REQUIRE(exact);
  CHECK(exact->is_array());
}

TEST_CASE("ParseJson refuses a text nested deeper than the limit before parsing it", "[unit]") {
  // The issue's request: ~70,000 nested arrays crashed whoever walked the parsed value.
  for (const auto& text : {Nested('[', ']', 70'000), NestedObjects(50'000), Nested('[', ']', 257)}) {
    auto value = ParseJson(text, "GET https://example.test/v1/x");
    REQUIRE_FALSE(value);
    CHECK(value.error().message == "GET https://example.test/v1/x: JSON nested deeper than 256 levels");
    CHECK(value.error().reason == tputrain::core::kJsonTooDeep);
    CHECK(value.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
  }
  // Unterminated: still refused for its depth, never half-built.
  auto open = ParseJson(std::string(100'000, '['), "");
  REQUIRE_FALSE(open);
  CHECK(open.error().message == "JSON nested deeper than 256 levels");
  CHECK_FALSE(ParseJson(R"({"a": {"b": {}}})", "body", JsonLimits{1024, 2}));
  CHECK(ParseJson(R"({"a": {"b": 1}})", "body", JsonLimits{1024, 2}));
}

TEST_CASE("ParseJson refuses a text larger than the limit", "[unit]") {
  std::string large(2050, ' ');
  large.back() = '1';
  auto value = ParseJson(large, "ledger.json", JsonLimits{2 * 1024, 8});
  REQUIRE_FALSE(value);
  CHECK(value.error().message == "ledger.json: JSON larger than 2 KiB");
  CHECK(value.error().reason == tputrain::core::kJsonTooLarge);
  large.erase(0, 2);
  CHECK(ParseJson(large, "ledger.json", JsonLimits{2 * 1024, 8}));
}

TEST_CASE("ParseJson says where malformed JSON fails and never quotes it", "[unit]") {
  auto value = ParseJson(R"({"token": "ya29.secret", oops})", "oauth2.googleapis.com");
  REQUIRE_FALSE(value);
  CHECK(value.error().message == "oauth2.googleapis.com: not valid JSON (at byte 26)");
  CHECK(value.error().reason == tputrain::core::kJsonMalformed);
  CHECK(value.error().message.find("ya29") == std::string::npos);
  // A number no double holds: nlohmann throws it as out_of_range, not parse_error.
  for (const std::string& text : {std::string("[1e999999]"), "{\"a\": -" + std::string(5000, '9') + "}"}) {
    auto huge = ParseJson(text, "x");
    REQUIRE_FALSE(huge);
    CHECK(huge.error().message == "x: not valid JSON (a number out of range)");
    CHECK(huge.error().reason == tputrain::core::kJsonMalformed);
  }
  // Invalid UTF-8 in a string, an empty text, a lone surrogate: malformed, not a crash.
  for (const std::string& text : {std::string("{\"a\": \"\xff\xfe\"}"), std::string(), std::string("\"\\udc80\""),
                                  std::string("[1,2"), std::string("\x1b[31m")}) {
    auto bad = ParseJson(text, "x");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().reason == tputrain::core::kJsonMalformed);
    CHECK(bad.error().message.find('\x1b') == std::string::npos);
  }
}

TEST_CASE("ScanJson counts brackets and commas outside strings only", "[unit]") {
  auto depth = [](std::string_view text) { return ScanJson(text, {.max_depth = 10}).depth; };
  CHECK(depth("1") == 0);
  CHECK(depth("[]") == 1);
  CHECK(depth(R"({"a": [{"b": []}], "c": {}})") == 4);
  CHECK(depth(R"(["[[[[", "\"[[[", "\\", [1]])") == 2);
  CHECK(depth(std::string(1000, '[')) == 11);  // stops once past the bound
  CHECK(depth("]]]][") == 1);
  auto values = [](std::string_view text) { return ScanJson(text, {.max_values = 100}).values; };
  CHECK(values("") == 0);
  CHECK(values(" 1 ") == 1);
  CHECK(values("[1, 2, 3]") == 4);  // at least the 4 a parser builds
  CHECK(values(R"({"a": 1, "b": [2, "x,y"]})") == 5);
  CHECK(values(std::string(1000, ',')) == 101);
}

TEST_CASE("ParseJson refuses more values than asked, before building any", "[unit]") {
  std::string zeros = "[0";
  for (int i = 0; i < 2000; ++i) zeros += ",0";
  zeros += "]";
  auto many = ParseJson(zeros, "body", {.max_values = 1000});
  REQUIRE_FALSE(many);
  CHECK(many.error().message == "body: JSON of more than 1000 values");
  CHECK(many.error().reason == tputrain::core::kJsonTooMany);
  CHECK(ParseJson(zeros, "body"));  // within the default
  CHECK(ParseJson(zeros, "body", {.max_values = 2002}));
}
