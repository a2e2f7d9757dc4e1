#include <catch2/catch.hpp>

#include "tputrain/catalog/models.h"

TEST_CASE("the seed workloads have presets with their parameter counts") {
  auto llama = tputrain::catalog::FindModelPreset("llama3-8b");
  REQUIRE(llama);
  CHECK(llama->parameters == Approx(8.03e9));
  CHECK(llama->default_mode == tputrain::catalog::WorkloadMode::kTrain);
  for (const char* name : {"llama3.1-405b", "llama2-70b", "saxml-175b-test"}) {
    auto preset = tputrain::catalog::FindModelPreset(name);
    REQUIRE(preset);
    CHECK(preset->default_mode == tputrain::catalog::WorkloadMode::kServe);
  }
}

TEST_CASE("an unknown model lists the valid ones") {
  auto missing = tputrain::catalog::FindModelPreset("gpt-5");
  REQUIRE_FALSE(missing);
  CHECK(tputrain::core::IsUsageError(missing.error()));
  CHECK_THAT(missing.error().message, Catch::Contains("llama3-8b") && Catch::Contains("--model"));
}
