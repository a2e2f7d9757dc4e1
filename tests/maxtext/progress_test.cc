#include "tputrain/maxtext/progress.h"

#include <catch2/catch.hpp>
#include <vector>

#include "testing/fake_clock.h"

using namespace tputrain::maxtext;
using tputrain::testing::FakeClock;

namespace {

std::string Step(int step, double seconds) {
  return "completed step: " + std::to_string(step) + ", seconds: " + std::to_string(seconds) +
         ", TFLOP/s/device: 1.000, Tokens/s/device: 1000.000, total_weights: 128, loss: 4.250\n";
}

struct Recorder final : public tputrain::core::Reporter {
  void Info(std::string_view) override {}
  void Warn(std::string_view) override {}
  void Progress(std::string_view, std::string_view state) override { shown.emplace_back(state); }
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
  std::vector<std::string> shown;
};

}  // namespace

TEST_CASE("progress: step count, ETA from steps after the first two, last throughput and loss", "[maxtext]") {
  ProgressModel model(10);
  CHECK_FALSE(model.Feed("Config param steps: 10\n"));
  CHECK(model.State().steps_done == 0);
  CHECK(model.Feed(Step(0, 0.1) + Step(1, 9.0)));
  CHECK_FALSE(model.State().eta_seconds);  // nothing representative timed yet
  CHECK(model.Feed(Step(2, 2.0) + Step(3, 4.0).substr(0, 20)));
  CHECK(model.Feed(Step(3, 4.0).substr(20)));
  ProgressState state = model.State();
  CHECK(state.steps_done == 4);
  CHECK(*state.eta_seconds == Approx(6 * 3.0));
  CHECK(*state.tokens_per_second_per_device == 1000);
  CHECK(*state.loss == 4.25);
  CHECK(RenderBar(state, 10) == "[####------] 4/10 steps  ETA 0:18  1000 tokens/s/device  loss 4.250");
  CHECK(RenderLine(state) == "step 4/10 (40%), ETA 0:18, 1000 tokens/s/device, loss 4.250");
}

TEST_CASE("plain progress lines come once per tenth of the run and at the end", "[maxtext]") {
  FakeClock clock;
  Recorder reporter;
  ProgressPrinter printer(reporter, clock, /*live=*/false);
  ProgressModel model(40);
  for (int step = 0; step < 40; ++step) {
    model.Feed(Step(step, 0.5));
    printer.Update(model.State());
  }
  printer.Flush();
  REQUIRE(reporter.shown.size() == 11);  // step 1, then steps 4, 8, ..., 40
  CHECK(reporter.shown.front().rfind("step 1/40", 0) == 0);
  CHECK(reporter.shown.back().rfind("step 40/40 (100%)", 0) == 0);
}

TEST_CASE("the live bar is redrawn at most every 100 ms, and the last state is flushed", "[maxtext]") {
  FakeClock clock;
  Recorder reporter;
  ProgressPrinter printer(reporter, clock, /*live=*/true);
  ProgressModel model(std::nullopt);
  for (int step = 0; step < 6; ++step) {
    model.Feed(Step(step, 0.01));
    printer.Update(model.State());
    clock.Advance(std::chrono::milliseconds(30));
  }
  CHECK(reporter.shown.size() == 2);  // at 0 ms and at 120 ms; 150 ms is held back
  printer.Flush();
  REQUIRE(reporter.shown.size() == 3);
  CHECK(reporter.shown.back().rfind("6 steps", 0) == 0);
}
