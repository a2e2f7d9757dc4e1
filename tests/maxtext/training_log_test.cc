#include "tputrain/maxtext/training_log.h"

#include <catch2/catch.hpp>
#include <string>

using tputrain::maxtext::TrainingLog;

namespace {

std::string StepLine(int step, const char* prefix = "I1122 12:49:18.945887 1405 metric_logger.py:265] ") {
  return std::string(prefix) + "completed step: " + std::to_string(step) +
         ", seconds: 0.500, TFLOP/s/device: 2.000, Tokens/s/device: 256.000, total_weights: 128, loss: 5.000\n";
}

}  // namespace

TEST_CASE("lines split anywhere across pieces are parsed once whole", "[maxtext]") {
  std::string log =
      "Config param steps: 3\n" + StepLine(0) + StepLine(1) + "number parameters: 0.000 billion\n" + StepLine(2);
  // Every split point, including inside the absl prefix and inside numbers.
  for (size_t cut = 0; cut <= log.size(); ++cut) {
    TrainingLog parsed;
    int added = parsed.Feed(log.substr(0, cut));
    added += parsed.Feed(log.substr(cut));
    INFO("cut at " << cut);
    CHECK(added == 3);
    REQUIRE(parsed.steps().size() == 3);
    CHECK(parsed.steps().at(2).metrics.seconds == Approx(0.5));
    CHECK(parsed.parameters());
  }
}

TEST_CASE("byte-by-byte feeding and a last line without a newline", "[maxtext]") {
  std::string log = StepLine(0) + StepLine(1);
  log.pop_back();
  TrainingLog parsed;
  for (char c : log) parsed.Feed(std::string_view(&c, 1));
  CHECK(parsed.steps().size() == 1);
  CHECK(parsed.Finish() == 1);
  CHECK(parsed.steps().size() == 2);
  CHECK(parsed.lines() == 2);
}

TEST_CASE("each host's copy of a step counts once, with Ray's repeat count", "[maxtext]") {
  TrainingLog parsed;
  parsed.Feed(StepLine(5, "(RayTrainWorker pid=1, ip=10.0.0.1) "));
  parsed.Feed(StepLine(5, "(RayTrainWorker pid=2, ip=10.0.0.2) "));
  std::string folded = StepLine(5, "(RayTrainWorker pid=3, ip=10.0.0.3) ");
  folded.insert(folded.size() - 1, " [repeated 2x across cluster]");
  parsed.Feed(folded);
  REQUIRE(parsed.steps().size() == 1);
  CHECK(parsed.steps().at(5).lines == 4);
  CHECK(parsed.arrival_order() == std::vector<int64_t>{5});
}

TEST_CASE("start-up facts and the NaN abort are kept", "[maxtext]") {
  TrainingLog parsed;
  parsed.Feed("I1123 00:50:55.363959 1401 maxtext_utils.py:2098] Num_devices: 1, shape (1, 1, 1)\n");
  parsed.Feed(
      "Per train step:\n Total TFLOPs: 0.00 \n split as 85.71% learnable weight flops and 14.29% attention flops\n");
  parsed.Feed("completed profiler activation/deactivation step: 3, total_weights: 128, loss: 5.000\n");
  parsed.Feed("Aborting training due to NaN loss.\n");
  CHECK(*parsed.num_devices() == 1);
  CHECK(*parsed.printed_step_tflops() == 0.0);
  CHECK(parsed.profiler_boundaries() == 1);
  CHECK(parsed.nan_abort());
  CHECK(parsed.steps().empty());
}
