#include <catch2/catch.hpp>

#include "tputrain/catalog/sizing.h"

using tputrain::catalog::PlanRequest;
using tputrain::catalog::PlanSlice;
using tputrain::catalog::WorkloadMode;

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
  CHECK(plan->memory_gb_per_slice == Approx(256.97).epsilon(1e-4));
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

TEST_CASE("plan for sixteen models against the arithmetic done by hand") {
  // Memory per slice = parameters × bytes × (1 + headroom): serving bf16 2 bytes + 20%, int8 1
  // byte + 20%; training 16 bytes (fp32 weights, gradients, two Adam moments) + 100%. Chips =
  // that ÷ HBM per chip (v6e 32 GB, v5p 95 GB), rounded up; the slice is the smallest with as
  // many. Parameters from MaxText's dimensions (tests/catalog/parameters_test.cc holds them to
  // the published sizes).
  struct Case {
    const char* model;
    WorkloadMode mode;
    const char* dtype;
    double parameters_b;
    double memory_gb;
    int chips;
    const char* slice;
  };
  const auto train = WorkloadMode::kTrain;
  const auto serve = WorkloadMode::kServe;
  // clang-format off
  const Case cases[] = {
      {"qwen3-32b", train, "", 32.762, 1048.4, 33, "v6e-64"},          // 32.762 × 32 = 1048.4; ÷ 32 = 32.8
      {"qwen3-32b", serve, "", 32.762, 78.63, 3, "v6e-4"},              // 32.762 × 2.4 = 78.6; ÷ 32 = 2.46
      {"llama3.3-70b", train, "", 70.554, 2257.7, 71, "v6e-128"},      // ÷ 32 = 70.55
      {"llama3.3-70b", serve, "", 70.554, 169.33, 6, "v6e-8"},         // ÷ 32 = 5.29
      {"mixtral-8x7b", serve, "", 46.703, 112.09, 4, "v6e-4"},         // all 8 experts: ÷ 32 = 3.50
      {"mixtral-8x22b", train, "", 140.63, 4500.2, 141, "v6e-256"},    // ÷ 32 = 140.6
      {"deepseek3-671b", serve, "", 671.03, 1610.5, 51, "v6e-64"},     // all 256 experts: ÷ 32 = 50.3
      {"deepseek3-671b", train, "", 671.03, 21473, 227, "v5p-512"},    // > v6e-256's 8192 GB: ÷ 95 = 226.0
      {"llama3.1-405b", train, "", 405.85, 12987, 137, "v5p-512"},     // > 8192 GB: ÷ 95 = 136.7
      {"qwen3-235b-a22b", serve, "int8", 235.09, 282.11, 9, "v6e-16"}, // 235.09 × 1.2; ÷ 32 = 8.82
      {"gemma3-27b", serve, "", 27.009, 64.82, 3, "v6e-4"},            // ÷ 32 = 2.03
      {"kimi-k2-1t", serve, "", 1026.4, 2463.4, 77, "v6e-128"},        // ÷ 32 = 76.98
      {"gpt-oss-120b", serve, "", 116.83, 280.39, 9, "v6e-16"},        // ÷ 32 = 8.76
      {"qwen3-0.6b", train, "", 0.5960, 19.07, 1, "v6e-1"},            // ÷ 32 = 0.60
      {"llama3.1-8b", train, "", 8.0303, 256.97, 9, "v6e-16"},         // ÷ 32 = 8.03
      {"gemma2-27b", serve, "", 27.228, 65.35, 3, "v6e-4"},            // ÷ 32 = 2.04
  };
  // clang-format on
  for (const auto& c : cases) {
    auto plan = PlanSlice({.model = c.model, .mode = c.mode, .dtype = c.dtype});
    REQUIRE(plan);
    INFO(c.model << " " << tputrain::catalog::ModeName(c.mode) << ": " << plan->formula);
    CHECK(plan->model.parameters / 1e9 == Approx(c.parameters_b).epsilon(0.001));
    CHECK(plan->memory_gb_per_slice == Approx(c.memory_gb).epsilon(0.001));
    CHECK(plan->min_chips_per_slice == c.chips);
    CHECK(plan->slice.accelerator_type == c.slice);
    CHECK_THAT(plan->formula, Catch::Contains(c.slice));
  }
}

TEST_CASE("a mixture of experts is sized on all its experts, and why says so") {
  auto plan = PlanSlice({.model = "deepseek3-671b", .mode = WorkloadMode::kServe});
  REQUIRE(plan);
  CHECK(plan->model.mixture_of_experts());
  CHECK_THAT(plan->formula, Catch::StartsWith("mixture of experts: every expert's weights are held in HBM") &&
                                Catch::Contains("671 B parameters") && Catch::Contains("37.55 B active"));
}

TEST_CASE("a model too large for its default generation is sized on the next, and why says so") {
  auto plan = PlanSlice({.model = "deepseek3-671b", .mode = WorkloadMode::kTrain});
  REQUIRE(plan);
  CHECK(plan->slice.generation->family == "v5p");
  CHECK_THAT(plan->formula, Catch::Contains("more than v6e's largest slice holds (v6e-256: 8192 GB)") &&
                                Catch::Contains("sized on v5p"));
  // Named, the generation stays: too large is an error that says what to try.
  auto named = PlanSlice({.model = "deepseek3-671b", .mode = WorkloadMode::kTrain, .accelerator = "v6e"});
  REQUIRE_FALSE(named);
  CHECK_THAT(named.error().message, Catch::Contains("--model deepseek3-671b") && Catch::Contains("largest v6e slice"));
}

TEST_CASE("--params plans a model of that size; --active-params marks it a mixture of experts") {
  auto dense = tputrain::catalog::ModelOfSize("70b", "");
  REQUIRE(dense);
  auto plan = PlanSlice(*dense, {.mode = WorkloadMode::kServe});
  REQUIRE(plan);
  CHECK(plan->memory_gb_per_slice == Approx(168));  // 70 × 2 × 1.2; ÷ 32 = 5.25 → 6 chips
  CHECK(plan->slice.accelerator_type == "v6e-8");
  CHECK_FALSE(plan->model.mixture_of_experts());
  auto moe = tputrain::catalog::ModelOfSize("1t", "32B");
  REQUIRE(moe);
  auto moe_plan = PlanSlice(*moe, {.mode = WorkloadMode::kServe});
  REQUIRE(moe_plan);
  CHECK(moe_plan->memory_gb_per_slice == Approx(2400));  // on the whole trillion
  CHECK(moe_plan->slice.accelerator_type == "v6e-128");
  CHECK_THAT(moe_plan->formula, Catch::Contains("sized on all 1000 B parameters") && Catch::Contains("32 B active"));
}

TEST_CASE("a parameter count is digits and a unit, in range; anything else names the flag") {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, double>>{
           {"70b", 70e9}, {"70B", 70e9}, {"1.5t", 1.5e12}, {"350m", 350e6}, {"8030261248", 8030261248.0}}) {
    auto model = tputrain::catalog::ModelOfSize(text, "");
    REQUIRE(model);
    CHECK(model->parameters == Approx(expected));
  }
  for (const char* bad : {"70q", "70", "b", "-70b", "1e9", "70.b", "0.5k", "200t", "7 0b", "70bb", ""}) {
    auto model = tputrain::catalog::ModelOfSize(bad, "");
    REQUIRE_FALSE(model);
    INFO(bad);
    CHECK_THAT(model.error().message, Catch::StartsWith("--params: expected a parameter count"));
  }
  auto active = tputrain::catalog::ModelOfSize("70b", "80b");
  REQUIRE_FALSE(active);
  CHECK_THAT(active.error().message, Catch::StartsWith("--active-params: 80b is more than --params 70b"));
  auto bad_active = tputrain::catalog::ModelOfSize("70b", "x");
  REQUIRE_FALSE(bad_active);
  CHECK_THAT(bad_active.error().message, Catch::StartsWith("--active-params: expected"));
}
