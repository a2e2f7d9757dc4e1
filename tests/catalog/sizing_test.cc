#include <catch2/catch.hpp>

#include "tputrain/catalog/sizing.h"

using tputrain::catalog::PlanRequest;
using tputrain::catalog::PlanSlice;

TEST_CASE("seed 003: 175B in bf16 is 350 GB, 21.9 v5e chips, so one 4x8 slice of 8 nodes") {
  auto plan = PlanSlice({.model = "saxml-175b-test"});
  REQUIRE(plan);
  double weights_gb = plan->model.parameters * plan->bytes_per_parameter / 1e9;
  CHECK(weights_gb == Approx(350));
  CHECK(weights_gb / plan->slice.generation->hbm_gb_per_chip == Approx(21.875));
  CHECK(plan->slice.chips == 32);
  CHECK(plan->slice.topology == "4x8");
  CHECK(plan->nodes_per_slice == 8);
  CHECK(plan->slice.machine_type == "ct5lp-hightpu-4t");
  CHECK_THAT(plan->formula, Catch::Contains("350 GB") && Catch::Contains("21.9"));
}

TEST_CASE("seed 001: Llama 3 8B training on v6e is v6e-16, 4x4, 4 nodes, fsdp 4 × tensor 4") {
  auto plan = PlanSlice({.model = "llama3-8b", .accelerator = "v6e"});
  REQUIRE(plan);
  CHECK(plan->slice.accelerator_type == "v6e-16");
  CHECK(plan->slice.topology == "4x4");
  CHECK(plan->nodes_per_slice == 4);
  CHECK(plan->slice.machine_type == "ct6e-standard-4t");
  CHECK(plan->ici.fsdp == 4);
  CHECK(plan->ici.tensor == 4);
  // 8.03e9 × 16 B × 2 = 257 GB; ÷ 32 GB = 8.03 → 9 chips → 4x4.
  CHECK(plan->memory_gb_per_slice == Approx(256.96));
  CHECK(plan->min_chips_per_slice == 9);
}

TEST_CASE("seed 002: Llama 3.1 405B int8 serving fits one v6e 4x4") {
  auto plan = PlanSlice({.model = "llama3.1-405b"});
  REQUIRE(plan);
  CHECK(plan->dtype == "int8");
  CHECK(plan->slice.accelerator_type == "v6e-16");
  CHECK(plan->nodes_per_slice == 4);
  auto bf16 = PlanSlice({.model = "llama3.1-405b", .dtype = "bf16"});
  REQUIRE(bf16);
  CHECK(bf16->slice.chips == 32);
}

TEST_CASE("seed 002: disaggregated Llama 2 70B is two v6e 2x4 slices of 2 nodes") {
  auto plan = PlanSlice({.model = "llama2-70b"});
  REQUIRE(plan);
  CHECK(plan->slices == 2);
  CHECK(plan->slice.topology == "2x4");
  CHECK(plan->nodes_per_slice == 2);
  CHECK(plan->memory_gb == Approx(2 * plan->memory_gb_per_slice));
}

TEST_CASE("ICI splits keep tensor parallelism within a host and multiply to the chips") {
  for (int chips : {1, 4, 8, 16, 32, 64, 256}) {
    auto ici = tputrain::catalog::SplitIci(chips);
    CHECK(ici.product() == chips);
    CHECK(ici.tensor <= 4);
  }
}

TEST_CASE("bad planner input is a usage error naming the flag") {
  auto accelerator = PlanSlice({.model = "llama3-8b", .accelerator = "h100"});
  REQUIRE_FALSE(accelerator);
  CHECK_THAT(accelerator.error().message, Catch::Contains("--accelerator") && Catch::Contains("v5p"));
  auto dtype = PlanSlice({.model = "llama3.1-405b", .dtype = "fp4"});
  REQUIRE_FALSE(dtype);
  CHECK_THAT(dtype.error().message, Catch::Contains("--dtype"));
  auto too_big =
      PlanSlice({.model = "llama3.1-405b", .mode = tputrain::catalog::WorkloadMode::kTrain, .accelerator = "v5e"});
  REQUIRE_FALSE(too_big);
  CHECK(tputrain::core::IsUsageError(too_big.error()));
  CHECK_THAT(too_big.error().message, Catch::Contains("largest v5e slice"));
}
