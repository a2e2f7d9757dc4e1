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

TEST_CASE("ParseWhole refuses a single digit above a small maximum", "[unit]") {
  CHECK_FALSE(tputrain::core::ParseWhole("--workers", "5", 0, 3));
  CHECK(*tputrain::core::ParseWhole("--workers", "3", 0, 3) == 3);
}

TEST_CASE("ParseWhole takes zero where the flag allows it", "[unit]") {
  CHECK(*tputrain::core::ParseWhole("--entrypoint-memory", "0", 0, 100) == 0);
  auto negative = tputrain::core::ParseWhole("--entrypoint-memory", "-1", 0, 100);
  REQUIRE_FALSE(negative);
  CHECK(negative.error().message == "--entrypoint-memory: expected a whole number from 0 to 100, got '-1'");
}

TEST_CASE("ParseAmount takes Ray's resource amounts as typed and refuses the rest in one line", "[unit]") {
  using tputrain::core::ParseAmount;
  CHECK(*ParseAmount("--entrypoint-num-cpus", "0", 1e6) == 0.0);
  CHECK(*ParseAmount("--entrypoint-num-cpus", "0.5", 1e6) == 0.5);
  CHECK(*ParseAmount("--entrypoint-num-cpus", "12", 1e6) == 12.0);
  for (const char* text : {"", "-1", "+1", "1e3", "nan", "inf", ".5", "5.", "1.2.3", "two", "1000001", " 1"}) {
    auto parsed = ParseAmount("--entrypoint-num-cpus", text, 1e6);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
    CHECK(parsed.error().message ==
          std::string("--entrypoint-num-cpus: expected a number from 0 to 1e+06, got '") + text + "'");
  }
}

namespace tputrain::core {
namespace {

TEST_CASE("ParseByteSize takes bytes and binary units, and refuses the rest in one line", "[unit]") {
  CHECK(*ParseByteSize("--max-context-size", "4096", 1ULL << 40) == 4096);
  CHECK(*ParseByteSize("--max-context-size", "512MiB", 1ULL << 40) == 512ULL << 20);
  CHECK(*ParseByteSize("--max-context-size", "2G", 1ULL << 40) == 2ULL << 30);
  CHECK(*ParseByteSize("--max-context-size", "1TiB", 1ULL << 40) == 1ULL << 40);
  for (const char* bad : {"", "0", "-1", "1.5GiB", "2gb", "GiB", "2 GiB", "3TiB", "99999999999999999999"}) {
    INFO(bad);
    auto parsed = ParseByteSize("--max-context-size", bad, 1ULL << 40);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message.rfind("--max-context-size: expected a size such as 512MiB", 0) == 0);
  }
}

TEST_CASE("HumanBytes picks the unit a person reads", "[unit]") {
  CHECK(HumanBytes(812) == "812 B");
  CHECK(HumanBytes(1434) == "1.4 KiB");
  CHECK(HumanBytes(3ULL << 20) == "3.0 MiB");
  CHECK(HumanBytes(5ULL << 40) == "5.0 TiB");
}

}  // namespace
}  // namespace tputrain::core
