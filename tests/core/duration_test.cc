#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "tputrain/core/duration.h"

using std::chrono::milliseconds;
using tputrain::core::ErrorKind;
using tputrain::core::FormatDuration;
using tputrain::core::ParseDuration;
using tputrain::core::ParseOptionalDuration;
using tputrain::core::ZeroDuration;

namespace {

milliseconds Parsed(const std::string& text, ZeroDuration zero = ZeroDuration::kRefused) {
  auto duration = ParseDuration("--timeout", text, zero);
  REQUIRE(duration);
  return *duration;
}

std::string Refusal(const std::string& text, ZeroDuration zero = ZeroDuration::kRefused) {
  auto duration = ParseDuration("--timeout", text, zero);
  REQUIRE_FALSE(duration);
  CHECK(duration.error().kind == ErrorKind::kInvalidArgument);
  CHECK(tputrain::core::ExitCodeFor(duration.error()) == 2);
  CHECK(duration.error().message.find('\n') == std::string::npos);
  return duration.error().message;
}

}  // namespace

TEST_CASE("durations: one unit, compound, fractions, and a bare number as seconds", "[unit]") {
  CHECK(Parsed("500ms") == milliseconds(500));
  CHECK(Parsed("90s") == milliseconds(90'000));
  CHECK(Parsed("30m") == milliseconds(1'800'000));
  CHECK(Parsed("2h") == milliseconds(7'200'000));
  CHECK(Parsed("1h30m") == milliseconds(5'400'000));
  CHECK(Parsed("1m30s") == milliseconds(90'000));
  CHECK(Parsed("1h0m5s250ms") == milliseconds(3'605'250));
  CHECK(Parsed("1.5s") == milliseconds(1500));
  CHECK(Parsed("0.25h") == milliseconds(900'000));
  // `job wait --timeout` took a number of seconds, fractions included; it still does.
  CHECK(Parsed("90") == milliseconds(90'000));
  CHECK(Parsed("1.5") == milliseconds(1500));
}

TEST_CASE("durations: zero only where the flag allows it", "[unit]") {
  CHECK(Parsed("0", ZeroDuration::kAllowed) == milliseconds(0));
  CHECK(Parsed("0s", ZeroDuration::kAllowed) == milliseconds(0));
  CHECK(Refusal("0") == "--timeout: expected a duration above zero such as 90s, 30m or 2h, got '0'");
  CHECK(Refusal("0ms").find("above zero") != std::string::npos);
  // Rounds to the millisecond, so a sub-millisecond value is zero too.
  CHECK(Refusal("0.0001s").find("above zero") != std::string::npos);
}

TEST_CASE("durations: one usage line naming the flag and the form for anything else", "[unit]") {
  CHECK(Refusal("soon") ==
        "--timeout: expected a duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds), got 'soon'");
  for (const char* bad :
       {"",    "-1s", "-5",  "+5s", "nan",   "inf",   "1e3",  "5d",   "5 s",  " 5s",
        "5s ", "s",   "1.s", ".5s", "1..5s", "30m1h", "1s1s", "1h30", "5sec", "99999999999999999999h"}) {
    INFO(bad);
    CHECK(Refusal(bad).rfind("--timeout: expected a duration", 0) == 0);
  }
}

TEST_CASE("FormatDuration writes the shortest text ParseDuration reads back", "[unit]") {
  CHECK(FormatDuration(milliseconds(0)) == "0s");
  CHECK(FormatDuration(milliseconds(250)) == "250ms");
  CHECK(FormatDuration(milliseconds(1500)) == "1500ms");
  CHECK(FormatDuration(milliseconds(90'000)) == "1m30s");
  CHECK(FormatDuration(milliseconds(1'800'000)) == "30m");
  CHECK(FormatDuration(milliseconds(5'400'000)) == "1h30m");
  CHECK(FormatDuration(milliseconds(7'200'000)) == "2h");
  for (long long ms : {1LL, 999LL, 61'000LL, 3'601'000LL, 86'400'000LL}) {
    CHECK(Parsed(FormatDuration(milliseconds(ms))) == milliseconds(ms));
  }
}

TEST_CASE("the emulator's --op-latency forms read as before; a bare number is now seconds there too", "[unit]") {
  CHECK(Parsed("250ms", ZeroDuration::kAllowed) == milliseconds(250));
  CHECK(Parsed("2s", ZeroDuration::kAllowed) == milliseconds(2000));
  CHECK(Parsed("1.5s", ZeroDuration::kAllowed) == milliseconds(1500));
  CHECK(Parsed("1m", ZeroDuration::kAllowed) == milliseconds(60'000));
  CHECK(Parsed("0", ZeroDuration::kAllowed) == milliseconds(0));
  CHECK(Parsed("5", ZeroDuration::kAllowed) == milliseconds(5000));
  CHECK(Refusal("fast", ZeroDuration::kAllowed).find("got 'fast'") != std::string::npos);
  CHECK(Refusal("-1s", ZeroDuration::kAllowed).find("got '-1s'") != std::string::npos);
}

TEST_CASE("a limit that may be left out: empty text is none, anything else reads as ParseDuration reads it", "[unit]") {
  auto none = ParseOptionalDuration("--timeout", "");
  REQUIRE(none);
  CHECK_FALSE(none->has_value());
  auto given = ParseOptionalDuration("--timeout", "30m");
  REQUIRE(given);
  CHECK(*given == milliseconds(1'800'000));
  auto bad = ParseOptionalDuration("--timeout", "soon");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.rfind("--timeout: ", 0) == 0);
}
