#include "tputrain/maxtext/step_line.h"

#include <catch2/catch.hpp>
#include <cmath>

using tputrain::maxtext::LineKind;
using tputrain::maxtext::ParseLine;
using tputrain::maxtext::StripAnsi;

namespace {

const char kBody025[] =
    "completed step: 5, seconds: 0.021, TFLOP/s/device: 0.004, Tokens/s/device: 6049.187, total_weights: 128, "
    "loss: 5.402, lm_loss: 5.402, perplexity: 221.853";

}  // namespace

TEST_CASE("the 0.2.5 step line through absl, with every field", "[maxtext]") {
  auto parsed = ParseLine(std::string("I1122 12:49:18.945887 140523 metric_logger.py:265] ") + kBody025);
  REQUIRE(parsed.kind == LineKind::kStep);
  const auto& m = *parsed.metrics;
  CHECK(m.step == 5);
  CHECK(m.seconds == Approx(0.021));
  CHECK(*m.tflops_per_device == Approx(0.004));
  CHECK(*m.tokens_per_device == Approx(6049.187));
  CHECK(*m.total_weights == 128);
  CHECK(*m.loss == Approx(5.402));
  REQUIRE(m.extra.size() == 2);
  CHECK(m.extra[0].first == "lm_loss");
  CHECK(m.extra[1].first == "perplexity");
  CHECK(m.extra[1].second == Approx(221.853));
  CHECK_FALSE(m.rampup);
  CHECK(parsed.origin.actor.empty());
  CHECK(parsed.origin.repeated == 1);
}

TEST_CASE("the same body bare, as print() wrote it in tpu-recipes-v0.1.5", "[maxtext]") {
  auto parsed = ParseLine(kBody025);
  REQUIRE(parsed.kind == LineKind::kStep);
  CHECK(parsed.metrics->step == 5);
  CHECK(*parsed.metrics->tokens_per_device == Approx(6049.187));
}

TEST_CASE("older bodies: ending at loss, and without Tokens/s", "[maxtext]") {
  auto tutorial = ParseLine(
      "completed step: 99, seconds: 1.100, TFLOP/s/device: 179.739, Tokens/s/device: 3725.218, total_weights: 65536, "
      "loss: 0.000");
  REQUIRE(tutorial.kind == LineKind::kStep);
  CHECK(tutorial.metrics->step == 99);
  CHECK(*tutorial.metrics->total_weights == 65536);
  CHECK(*tutorial.metrics->loss == 0.0);
  CHECK(tutorial.metrics->extra.empty());

  auto jetstream_era = ParseLine("completed step: 7, seconds: 2.500, TFLOP/s/device: 150.250, loss: 9.125");
  REQUIRE(jetstream_era.kind == LineKind::kStep);
  CHECK(*jetstream_era.metrics->tflops_per_device == Approx(150.25));
  CHECK_FALSE(jetstream_era.metrics->tokens_per_device);
  CHECK_FALSE(jetstream_era.metrics->total_weights);
  CHECK(*jetstream_era.metrics->loss == Approx(9.125));
}

TEST_CASE("MoE, MTP, DPO, indexer and elastic fields", "[maxtext]") {
  auto parsed = ParseLine(
      "I0418 00:31:40.895281 7 metric_logger.py:214] completed step: 12, seconds: 3.000, live slice count: 2, "
      "TFLOP/s/device: 100.000, Tokens/s/device: 1365.333, total_weights: 8192, loss: 7.250, lm_loss: 7.000, "
      "perplexity: 1096.633, dpo_loss: 0.693, reward_accuracy: 0.500, moe_lb_loss: 0.012345, "
      "moe_max_load_ratio: 1.2500, main_model_loss: 7.000, mtp_loss: 0.250, indexer_loss: 0.12345678");
  REQUIRE(parsed.kind == LineKind::kStep);
  const auto& m = *parsed.metrics;
  CHECK(*m.live_slices == 2);
  CHECK(*m.tokens_per_device == Approx(1365.333));
  CHECK(m.extra.size() == 9);
  CHECK(m.extra[4].first == "moe_lb_loss");
  CHECK(m.extra[4].second == Approx(0.012345));
  CHECK(m.extra.back().first == "indexer_loss");
}

TEST_CASE("NaN loss and the abort line", "[maxtext]") {
  auto parsed = ParseLine(
      "completed step: 3, seconds: 0.500, TFLOP/s/device: 1.000, Tokens/s/device: 256.000, total_weights: 128, "
      "loss: nan, lm_loss: nan, perplexity: nan");
  REQUIRE(parsed.kind == LineKind::kStep);
  CHECK(std::isnan(*parsed.metrics->loss));
  CHECK(ParseLine("I1122 12:49:18.945887 1405 train.py:500] Aborting training due to NaN loss.").kind ==
        LineKind::kNanAbort);
}

TEST_CASE("batch-size rampup steps carry no throughput", "[maxtext]") {
  auto parsed = ParseLine(
      "I1122 12:49:18.945887 1405 metric_logger.py:265] [Rampup Batch Size Phase], completed step: 2, seconds: 0.300, "
      "total_weights: 64, loss: 6.000, lm_loss: 6.000, perplexity: 403.429");
  REQUIRE(parsed.kind == LineKind::kStep);
  CHECK(parsed.metrics->rampup);
  CHECK(parsed.metrics->step == 2);
  CHECK_FALSE(parsed.metrics->tflops_per_device);
  CHECK_FALSE(parsed.metrics->tokens_per_device);
  CHECK(*parsed.metrics->total_weights == 64);
}

TEST_CASE("profiler boundary steps are recognised, not timed", "[maxtext]") {
  auto boundary = ParseLine(
      "I1122 12:49:18.945887 1405 metric_logger.py:265] completed profiler activation/deactivation step: 5, "
      "total_weights: 128, loss: 5.000, lm_loss: 5.000, perplexity: 148.413");
  CHECK(boundary.kind == LineKind::kProfilerBoundary);
  CHECK(boundary.boundary_step == 5);
  CHECK_FALSE(boundary.metrics);
  auto in_rampup =
      ParseLine("[Rampup Batch Size Phase], completed profiler activation/deactivation step: 1, loss: 5.000");
  CHECK(in_rampup.kind == LineKind::kProfilerBoundary);
}

TEST_CASE("Ray's worker prefix, with and without ip, in colour, and the dedup suffix", "[maxtext]") {
  auto seed = ParseLine(
      "(RayTrainWorker pid=21663, ip=10.12.3.6) completed step: 99, seconds: 1.100, TFLOP/s/device: 179.739, "
      "Tokens/s/device: 3725.218, total_weights: 65536, loss: 0.000 [repeated 3x across cluster]");
  REQUIRE(seed.kind == LineKind::kStep);
  CHECK(seed.origin.actor == "RayTrainWorker");
  CHECK(seed.origin.pid == 21663);
  CHECK(seed.origin.ip == "10.12.3.6");
  CHECK(seed.origin.repeated == 3);
  CHECK(*seed.metrics->loss == 0.0);
  CHECK(seed.metrics->extra.empty());

  // As a real head relays it: colour around the prefix and the suffix, absl prefix kept when the
  // worker's stderr is a file.
  auto coloured = ParseLine(
      "\x1b[36m(RayTrainWorker pid=4242)\x1b[0m I1122 12:49:18.945887 1405 metric_logger.py:265] "
      "completed step: 4, seconds: 0.020, TFLOP/s/device: 0.004, Tokens/s/device: 6400.000, total_weights: 128, "
      "loss: 5.500, lm_loss: 5.500, perplexity: 244.692\x1b[32m [repeated 2x across cluster]\x1b[0m\r");
  REQUIRE(coloured.kind == LineKind::kStep);
  CHECK(coloured.origin.actor == "RayTrainWorker");
  CHECK(coloured.origin.pid == 4242);
  CHECK(coloured.origin.ip.empty());
  CHECK(coloured.origin.repeated == 2);
  CHECK(coloured.metrics->step == 4);
  CHECK(coloured.metrics->extra.size() == 2);

  auto task = ParseLine("(pid=77) completed step: 1, seconds: 0.500, loss: 1.000");
  REQUIRE(task.kind == LineKind::kStep);
  CHECK(task.origin.pid == 77);
  CHECK(task.origin.actor.empty());
}

TEST_CASE("start-up lines worth reading", "[maxtext]") {
  auto params = ParseLine("number parameters: 8.030 billion");
  CHECK(params.kind == LineKind::kParameters);
  CHECK(params.value == Approx(8.03e9));
  auto tflops = ParseLine(" Total TFLOPs: 325.94 ");
  CHECK(tflops.kind == LineKind::kStepTflops);
  CHECK(tflops.value == Approx(325.94));
  auto devices = ParseLine("I1122 12:49:10.000000 1405 max_utils.py:300] Num_devices: 16, shape (1, 1, 16, 1)");
  CHECK(devices.kind == LineKind::kNumDevices);
  CHECK(devices.value == 16);
}

TEST_CASE("lines that only look like step lines", "[maxtext]") {
  CHECK(ParseLine("").kind == LineKind::kOther);
  CHECK(ParseLine("Config param steps: 8").kind == LineKind::kOther);
  CHECK(ParseLine("completed step: x, seconds: 1.0").kind == LineKind::kOther);
  CHECK(ParseLine("completed step: 3").kind == LineKind::kOther);  // no timing
  CHECK(ParseLine("(raylet) completed step: 3").kind == LineKind::kOther);
  // Eval lines are not training steps.
  CHECK(ParseLine("Completed eval after train step 10, loss=1.0, perplexity=2.7, total_weights=8").kind ==
        LineKind::kOther);
}

TEST_CASE("StripAnsi removes CSI sequences only", "[maxtext]") {
  CHECK(StripAnsi("\x1b[36m(RayTrainWorker pid=1)\x1b[0m x\x1b[1;32my\r") == "(RayTrainWorker pid=1) xy");
  CHECK(StripAnsi("plain [brackets]") == "plain [brackets]");
}
