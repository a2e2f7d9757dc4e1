#include "tputrain/maxtext/summary.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace tputrain::maxtext;

namespace {

// Step lines as MaxText formats them (%.3f) from exact step times.
std::string Lines(const std::vector<double>& seconds, double tokens, double tflops) {
  std::string log;
  for (size_t step = 0; step < seconds.size(); ++step) {
    double t = seconds[step];
    log += fmt::format(
        "I1122 12:49:18.945887 1405 metric_logger.py:265] completed step: {}, seconds: {:.3f}, TFLOP/s/device: {:.3f}, "
        "Tokens/s/device: {:.3f}, total_weights: {}, loss: {:.3f}, lm_loss: {:.3f}, perplexity: {:.3f}\n",
        step, t, tflops / t, tokens / t, static_cast<int>(tokens) * 16, 10.0 - step, 10.0 - step,
        std::exp(10.0 - step));
  }
  return log;
}

}  // namespace

TEST_CASE("summary of a v6e-16 llama3-8b run: steps 0 and 1 left out of the mean", "[maxtext]") {
  const std::vector<double> seconds = {0.2, 31.0, 1.1004, 1.0987, 1.1021, 1.0999};
  const double tokens = 4096, tflops = 197.62862515814402;
  TrainingLog log;
  log.Feed(Lines(seconds, tokens, tflops));
  RunFacts facts{tokens, tflops, 16, 1, 918.0, 6};
  TrainingSummary summary = Summarize(log, facts);

  double mean = (1.1004 + 1.0987 + 1.1021 + 1.0999) / 4;
  CHECK(summary.steps_logged == 6);
  CHECK(summary.steps_timed == 4);
  CHECK(*summary.mean_step_seconds == Approx(mean).epsilon(1e-6));
  CHECK(*summary.tokens_per_second_per_device == Approx(4096 / mean).epsilon(1e-6));
  CHECK(*summary.tokens_per_second_per_slice == Approx(16 * 4096 / mean).epsilon(1e-6));
  CHECK(*summary.tflops_per_second_per_device == Approx(tflops / mean).epsilon(1e-6));
  CHECK(*summary.mfu == Approx(tflops / mean / 918).epsilon(1e-6));
  CHECK(*summary.final_loss == Approx(5.0));
  CHECK_FALSE(summary.nan_loss);

  auto json = SummaryToJson(summary);
  CHECK(json["steps_logged"] == 6);
  CHECK(json["tokens_per_second_per_slice"].get<double>() == Approx(16 * 4096 / mean).epsilon(1e-6));
  std::string text = FormatSummary(summary);
  CHECK(text.find("MFU:") != std::string::npos);
  CHECK(text.find("6 of 6") != std::string::npos);
}

TEST_CASE("without run facts, tokens and TFLOPs per step come from the lines", "[maxtext]") {
  const std::vector<double> seconds = {0.05, 0.9, 0.0213, 0.0187, 0.0250, 0.0199};
  TrainingLog log;
  log.Feed(Lines(seconds, 128, 8.8080384e-05 * 1000));  // TFLOP/s large enough to survive %.3f
  TrainingSummary summary = Summarize(log, RunFacts{});
  double mean = (0.0213 + 0.0187 + 0.0250 + 0.0199) / 4;
  CHECK(*summary.tokens_per_device_step == 128);
  // The exact step time comes from Tokens/s (not the 3-decimal seconds).
  CHECK(*summary.mean_step_seconds == Approx(mean).epsilon(1e-5));
  CHECK(*summary.tokens_per_second_per_device == Approx(128 / mean).epsilon(1e-5));
  CHECK(*summary.tflops_per_second_per_device == Approx(8.8080384e-02 / mean).epsilon(1e-3));
  CHECK_FALSE(summary.mfu);
  CHECK(summary.devices_per_slice == 1);
}

TEST_CASE("short runs, rampup steps, NaN and the device count from the log", "[maxtext]") {
  TrainingLog log;
  log.Feed("Num_devices: 8, shape (1, 8)\n");
  log.Feed("[Rampup Batch Size Phase], completed step: 0, seconds: 0.300, total_weights: 64, loss: 6.000\n");
  log.Feed(
      "completed step: 1, seconds: 2.000, TFLOP/s/device: 1.000, Tokens/s/device: 64.000, total_weights: 128, "
      "loss: 5.000\n");
  log.Feed(
      "completed step: 2, seconds: 1.000, TFLOP/s/device: 2.000, Tokens/s/device: 128.000, total_weights: 128, "
      "loss: nan\n");
  RunFacts facts;
  facts.tokens_per_device_step = 128;
  facts.slices = 2;
  TrainingSummary summary = Summarize(log, facts);
  CHECK(summary.devices_per_slice == 4);
  CHECK(summary.steps_logged == 3);
  CHECK(summary.steps_timed == 2);  // only two full steps: both are used
  CHECK(*summary.mean_step_seconds == Approx(1.5));
  CHECK(*summary.tokens_per_second == Approx(128 / 1.5 * 4 * 2));
  CHECK(summary.nan_loss);
  CHECK_FALSE(summary.final_loss);
  CHECK(SummaryToJson(summary)["final_loss"].is_null());

  TrainingSummary empty = Summarize(TrainingLog{}, RunFacts{});
  CHECK(empty.steps_logged == 0);
  CHECK_FALSE(empty.mean_step_seconds);
  CHECK(FormatSummary(empty).find("-") != std::string::npos);
}
