#include "tputrain/catalog/flops.h"

#include <catch2/catch.hpp>

using namespace tputrain::catalog;

// Expected values are MaxText 0.2.5's own results (maxtext_utils.calculate_tflops_training_per_device
// through pyconfig, printed by tests/maxtext/maxtext_flops.py); maxtext_integration_test
// recomputes them live from the venv.
TEST_CASE("the CPU smoke preset's TFLOPs per step match MaxText's", "[catalog][flops]") {
  auto preset = FindModel("maxtext-cpu-smoke");
  REQUIRE(preset);
  auto shape = TrainingShapeOf(*preset);
  REQUIRE(shape);
  StepFlops flops = TrainingTflopsPerDevice(*shape);
  CHECK(flops.total_tflops == Approx(8.8080384e-05).epsilon(1e-12));
  CHECK(flops.learnable_tflops == Approx(7.5497472e-05).epsilon(1e-12));
  CHECK(flops.attention_tflops == Approx(1.2582912e-05).epsilon(1e-12));
  CHECK(TrainingTokensPerDevice(*shape) == 128);
}

TEST_CASE("llama3-8b at seed 001's shape matches MaxText", "[catalog][flops]") {
  auto shape = TrainingShapeOf(*FindModel("llama3-8b"));
  REQUIRE(shape);
  CHECK(shape->max_target_length == 4096);
  StepFlops flops = TrainingTflopsPerDevice(*shape);
  CHECK(flops.total_tflops == Approx(197.62862515814402).epsilon(1e-12));
  CHECK(flops.attention_tflops == Approx(13.194139533312).epsilon(1e-12));
  CHECK(TrainingTokensPerDevice(*shape) == 4096);
  // The seed's step line: 179.739 TFLOP/s/device at 1.100 s, i.e. ~197.7 TFLOP per step.
  CHECK(flops.total_tflops / 1.100 == Approx(179.739).epsilon(2e-3));
}

TEST_CASE("overrides change the arithmetic as MaxText's keys do", "[catalog][flops]") {
  auto shape = *TrainingShapeOf(*FindModel("llama3-8b"));
  double base = TrainingTflopsPerDevice(shape).total_tflops;
  REQUIRE(*ApplyTrainingOverride(shape, "gradient_accumulation_steps", "4"));
  CHECK(TrainingTflopsPerDevice(shape).total_tflops == Approx(4 * base));
  CHECK(TrainingTokensPerDevice(shape) == 4 * 4096);
  REQUIRE(*ApplyTrainingOverride(shape, "per_device_batch_size", "0.5"));
  CHECK(TrainingTokensPerDevice(shape) == 2 * 4096);
  CHECK_FALSE(*ApplyTrainingOverride(shape, "steps", "100"));  // no effect on FLOPs per step
  auto bad = ApplyTrainingOverride(shape, "max_target_length", "long");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("max_target_length") != std::string::npos);
  CHECK_FALSE(ApplyTrainingOverride(shape, "per_device_batch_size", "-1"));
}

TEST_CASE("presets without a MaxText shape have no training FLOPs", "[catalog][flops]") {
  auto shape = TrainingShapeOf(*FindModel("saxml-175b-test"));
  REQUIRE_FALSE(shape);
  CHECK(shape.error().message.find("saxml-175b-test") != std::string::npos);
}

TEST_CASE("tputrain's FLOP arithmetic is claimed only for the shapes MaxText counts the same way", "[catalog][flops]") {
  for (const char* dense : {"llama3-8b", "llama3.3-70b", "mistral-7b", "qwen3-32b", "qwen2.5-7b", "gemma-7b"}) {
    INFO(dense);
    CHECK(HasDenseTrainingFlops(*FindModel(dense)->shape));
  }
  for (const char* other : {"mixtral-8x7b", "deepseek3-671b", "gemma2-9b", "gemma3-27b", "gpt-oss-20b",
                            "llama4-17b-16e", "qwen3-next-80b-a3b", "gpt3-175b"}) {
    INFO(other);
    CHECK_FALSE(HasDenseTrainingFlops(*FindModel(other)->shape));
  }
}
