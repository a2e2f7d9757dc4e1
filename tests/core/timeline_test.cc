#include "tputrain/core/timeline.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <thread>

using tputrain::core::Timeline;

namespace {

std::vector<std::string> Lines(const Timeline& timeline) {
  std::ostringstream out;
  timeline.Print(out);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("a timeline prints its origin, then each span in the order they began, with its thread") {
  Timeline timeline;
  const auto origin = Timeline::Clock::now();
  // Seconds after now, so that "scoped" (now, after a thread's start and join, however long those
  // take on a loaded machine) begins first: the order depends on the times given, not on the clock.
  const auto later_begin = origin + std::chrono::seconds(20);
  timeline.Add("later", later_begin, later_begin + std::chrono::milliseconds(2));
  std::thread([&] {
    timeline.Add("beside", origin + std::chrono::seconds(10),
                 origin + std::chrono::seconds(10) + std::chrono::milliseconds(8));
  }).join();
  { Timeline::Span span(&timeline, "scoped"); }
  auto lines = Lines(timeline);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].starts_with("phase origin "));
  CHECK(std::stoll(lines[0].substr(13)) > 1'600'000'000'000'000);  // microseconds since the epoch
  // "scoped" began before "beside" and "later" (their begins are 10 and 20 s after now).
  CHECK(lines[1].starts_with("phase scoped "));
  CHECK(lines[1].ends_with(" 0"));
  CHECK(lines[2].starts_with("phase beside "));
  CHECK(lines[2].ends_with(" 1"));  // another thread
  CHECK(lines[3].starts_with("phase later "));
  CHECK(lines[3].ends_with(" 0"));
  std::istringstream later(lines[3]);
  std::string phase, name;
  double begin = 0, end = 0;
  later >> phase >> name >> begin >> end;
  CHECK(end - begin == Approx(2.0).margin(0.01));
}

TEST_CASE("a span ended early is recorded once, and a span without a timeline records nothing") {
  Timeline timeline;
  {
    Timeline::Span span(&timeline, "once");
    span.End();
  }
  Timeline::Span nowhere(nullptr, "nothing");
  nowhere.End();
  auto lines = Lines(timeline);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].starts_with("phase once "));
}
