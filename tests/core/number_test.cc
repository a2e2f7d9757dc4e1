#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "tputrain/core/number.h"

using tputrain::core::ParseCount;

TEST_CASE("ParseCount takes whole numbers from 1 to the limit", "[unit]") {
  CHECK(*ParseCount("--steps", "1", 100) == 1);
  CHECK(*ParseCount("--steps", "100", 100) == 100);
  CHECK(*ParseCount("--steps", "007", 100) == 7);
  CHECK(*ParseCount("--steps", "9223372036854775807", INT64_MAX) == INT64_MAX);
}

TEST_CASE("ParseCount refuses signs, zero, fractions, words and anything past the limit in one line", "[unit]") {
  for (const char* text :
       {"", "0", "-3", "+3", "1.5", "1e3", "nan", "ten", " 5", "101", "99999999999999999999", "9223372036854775808"}) {
    auto parsed = ParseCount("--num-nodes", text, 100);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
    CHECK(parsed.error().message ==
          std::string("--num-nodes: expected a whole number from 1 to 100, got '") + text + "'");
  }
}
