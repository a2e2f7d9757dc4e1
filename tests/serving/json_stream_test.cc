#include "json_stream.h"

#include <catch2/catch.hpp>

namespace tputrain::serving {
namespace {

// jetstream-http's stream as observed (../shared/notes/serving.md): pretty-printed objects, no separator.
const std::string kStream =
    "{\n    \"id\": \"generate-1\",\n    \"time_created\": 1795457058.38,\n    \"text\": \"ql\"\n}"
    "{\n    \"id\": \"generate-1\",\n    \"time_created\": 1795457058.51,\n    \"text\": \"{ \\\"}\\\\\"\n}"
    "{\n    \"id\": \"generate-1\",\n    \"time_created\": 1795457058.60,\n    \"text\": \"\"\n}";

TEST_CASE("concatenated JSON values come out whole, however the bytes are cut") {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    JsonValueSplitter splitter;
    auto first = splitter.Feed(std::string_view(kStream).substr(0, cut));
    auto second = splitter.Feed(std::string_view(kStream).substr(cut));
    REQUIRE(first);
    REQUIRE(second);
    std::vector<std::string> values = *first;
    values.insert(values.end(), second->begin(), second->end());
    INFO("cut at " << cut);
    REQUIRE(values.size() == 3);
    CHECK(values[1].find("\"text\": \"{ \\\"}\\\\\"") != std::string::npos);  // braces and escapes in a string
    CHECK(splitter.idle());
  }
}

TEST_CASE("bytes that cannot start a JSON value, or a value that never ends, are errors") {
  JsonValueSplitter splitter;
  CHECK_FALSE(splitter.Feed("{} oops"));
  JsonValueSplitter endless;
  auto opened = endless.Feed("{\"text\": \"" + std::string(JsonValueSplitter::kMaxValueBytes, 'x'));
  REQUIRE_FALSE(opened);
  CHECK(opened.error().message.find("1 MiB") != std::string::npos);
  JsonValueSplitter half;
  REQUIRE(half.Feed("{\"text\": \"a\""));
  CHECK_FALSE(half.idle());
}

}  // namespace
}  // namespace tputrain::serving
