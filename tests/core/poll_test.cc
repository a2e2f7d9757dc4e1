#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "testing/fake_clock.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/poll_seen.h"

using std::chrono::milliseconds;
using tputrain::core::Error;
using tputrain::core::ErrorKind;
using tputrain::core::Fail;
using tputrain::core::PollDelay;
using tputrain::core::PollOptions;
using tputrain::core::PollUntil;
using tputrain::core::Result;
using tputrain::testing::FakeClock;

namespace {

PollOptions Fast() {
  PollOptions options;
  options.initial_delay = milliseconds(100);
  options.multiplier = 2;
  options.max_delay = milliseconds(500);
  return options;
}

}  // namespace

TEST_CASE("poll delays start at the initial delay, grow by the multiplier and stop at the cap", "[unit]") {
  auto options = Fast();
  CHECK(PollDelay(options, 0) == milliseconds(100));
  CHECK(PollDelay(options, 1) == milliseconds(200));
  CHECK(PollDelay(options, 2) == milliseconds(400));
  CHECK(PollDelay(options, 3) == milliseconds(500));
  CHECK(PollDelay(options, 60) == milliseconds(500));
}

TEST_CASE("PollUntil polls at once, then after each delay, until done", "[unit]") {
  FakeClock time;
  int polls = 0;
  auto status = PollUntil([&]() -> Result<bool> { return ++polls == 4; }, Fast(), {time, time});
  CHECK(status);
  CHECK(polls == 4);
  CHECK(time.sleeps() == std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(400)});
}

TEST_CASE("PollUntil: a timeout stops waiting, the last sleep is cut to it, and a last look is taken", "[unit]") {
  FakeClock time;
  auto options = Fast();
  options.timeout = milliseconds(1000);
  options.timeout_note = "the operation goes on";
  int polls = 0;
  auto status = PollUntil([&]() -> Result<bool> { return ++polls < 0; }, options, {time, time});
  REQUIRE_FALSE(status);
  CHECK(status.error().kind == ErrorKind::kDeadlineExceeded);
  CHECK(status.error().message == "stopped waiting after 1s (the operation goes on)");
  CHECK(time.sleeps() ==
        std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(400), milliseconds(300)});
  CHECK(polls == 5);
}

TEST_CASE("PollUntil tolerates a few transient failures in a row, not more, and not other kinds", "[unit]") {
  FakeClock time;
  auto options = Fast();
  options.transient_failures = 2;
  int polls = 0;
  auto flaky = PollUntil(
      [&]() -> Result<bool> {
        ++polls;
        if (polls % 3 != 0) return Fail(Error::Make(ErrorKind::kUnavailable, "503"));
        return polls == 6;
      },
      options, {time, time});
  CHECK(flaky);  // two failures, a success resets the count, two failures, done
  CHECK(polls == 6);

  polls = 0;
  auto down = PollUntil(
      [&]() -> Result<bool> {
        ++polls;
        return Fail(Error::Make(ErrorKind::kUnavailable, "still down"));
      },
      options, {time, time});
  REQUIRE_FALSE(down);
  CHECK(down.error().message == "still down");
  CHECK(polls == 3);

  polls = 0;
  auto denied = PollUntil(
      [&]() -> Result<bool> {
        ++polls;
        return Fail(Error::Make(ErrorKind::kPermissionDenied, "no"));
      },
      options, {time, time});
  REQUIRE_FALSE(denied);
  CHECK(denied.error().kind == ErrorKind::kPermissionDenied);
  CHECK(polls == 1);
}

TEST_CASE("PollUntil: the caller says what is transient, and may want the last failure at the timeout", "[unit]") {
  FakeClock time;
  auto options = Fast();
  options.is_transient = [](const Error& error) { return error.kind == ErrorKind::kAborted; };
  options.transient_failures = 1000;
  options.timeout = milliseconds(700);
  options.on_timeout = tputrain::core::OnTimeout::kLastError;
  int polls = 0;
  auto status = PollUntil(
      [&]() -> Result<bool> { return Fail(Error::Make(ErrorKind::kAborted, "busy " + std::to_string(++polls))); },
      options, {time, time});
  REQUIRE_FALSE(status);
  CHECK(status.error().kind == ErrorKind::kAborted);
  CHECK(status.error().message == "busy 4");  // at 0, 100, 300 and 700 ms

  auto unavailable =
      PollUntil([&]() -> Result<bool> { return Fail(Error::Make(ErrorKind::kUnavailable, "not transient here")); },
                options, {time, time});
  REQUIRE_FALSE(unavailable);
  CHECK(unavailable.error().message == "not transient here");
}

TEST_CASE("PollUntil stops when cancelled, before a poll or during a sleep", "[unit]") {
  FakeClock time;
  tputrain::core::CancelToken cancel;
  int polls = 0;
  auto status = PollUntil(
      [&]() -> Result<bool> {
        if (++polls == 2) cancel.Cancel();
        return false;
      },
      Fast(), {time, time, &cancel});
  REQUIRE_FALSE(status);
  CHECK(status.error().kind == ErrorKind::kCancelled);
  CHECK(polls == 2);

  time.CancelSleeps();
  polls = 0;
  auto cut = PollUntil([&]() -> Result<bool> { return ++polls < 0; }, Fast(), {time, time});
  REQUIRE_FALSE(cut);
  CHECK(cut.error().kind == ErrorKind::kCancelled);
  CHECK(polls == 1);
}

TEST_CASE("PollUntilSeen: a look that saw progress starts the pauses over", "[unit]") {
  using tputrain::core::Seen;
  FakeClock time;
  // waiting, waiting, progressed, waiting, done
  const std::vector<Seen> looks{Seen::kWaiting, Seen::kWaiting, Seen::kProgressed, Seen::kWaiting, Seen::kDone};
  std::size_t polls = 0;
  auto status =
      tputrain::core::PollUntilSeen([&]() -> Result<Seen> { return looks.at(polls++); }, Fast(), {time, time});
  CHECK(status);
  CHECK(polls == looks.size());
  CHECK(time.sleeps() ==
        std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(100), milliseconds(200)});
}
