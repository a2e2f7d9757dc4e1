#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/render/values.h"

using namespace tputrain::render;

namespace {

std::map<std::string, std::string> For(const std::string& tpu_type, int slices) {
  auto slice = tputrain::catalog::FindSliceType(tpu_type);
  REQUIRE(slice);
  std::map<std::string, std::string> values;
  for (const auto& value : ValuesForSlice(*slice, slices)) values[value.name] = value.value;
  return values;
}

}  // namespace

TEST_CASE("v6e-16 (seed 001) gives the RayCluster's and trainer's numbers") {
  auto v = For("v6e-16", 1);
  CHECK(v["TPU_TOPOLOGY"] == "4x4");
  CHECK(v["TPU_CHIPS_PER_HOST"] == "4");
  CHECK(v["NUM_HOSTS"] == "4");
  CHECK(v["TPU_CHIPS"] == "16");
  CHECK(v["GKE_ACCELERATOR"] == "tpu-v6e-slice");
  CHECK(v["MACHINE_TYPE"] == "ct6e-standard-4t");
  CHECK(v["RAY_NUM_WORKERS"] == "4");
  CHECK(v["RAY_TPU_ACCELERATOR"] == "TPU-V6E");
  CHECK(v["LWS_SIZE"] == "5");
  CHECK(v["PATHWAYS_INSTANCE_TYPE"] == "tpuv6e:4x4");
  CHECK(v.size() == ComputedNames().size());
}

TEST_CASE("two v6e 2x4 slices (disaggregated 70B) keep LWS size 5") {
  auto v = For("v6e-8", 2);
  CHECK(v["TPU_TOPOLOGY"] == "2x4");
  CHECK(v["NUM_HOSTS"] == "2");
  CHECK(v["TOTAL_HOSTS"] == "4");
  CHECK(v["LWS_SIZE"] == "5");
  CHECK(v["PATHWAYS_INSTANCE_TYPE"] == "tpuv6e:2x4");
}

TEST_CASE("two v5e 4x8 slices (Saxml) are 8 hosts of 4 chips each") {
  auto v = For("v5litepod-32", 2);
  CHECK(v["TPU_TOPOLOGY"] == "4x8");
  CHECK(v["NUM_HOSTS"] == "8");
  CHECK(v["TPU_CHIPS_PER_HOST"] == "4");
  CHECK(v["GKE_ACCELERATOR"] == "tpu-v5-lite-podslice");
  CHECK(v["MACHINE_TYPE"] == "ct5lp-hightpu-4t");
  CHECK(v["TOTAL_CHIPS"] == "64");
  CHECK(v["TPU_PLATFORM_CHIP"] == "tpuv5e");
}

TEST_CASE("--set takes NAME=VALUE; the value may be empty or hold '='") {
  auto a = ParseAssignment("KSA_NAME=ray-ksa", "--set");
  REQUIRE(a);
  CHECK(a->first == "KSA_NAME");
  CHECK(a->second == "ray-ksa");
  CHECK(ParseAssignment("URL=https://x/?a=b", "--set")->second == "https://x/?a=b");
  CHECK(ParseAssignment("E=", "--set")->second.empty());
}

TEST_CASE("bad --set syntax is a usage error naming the flag and the expected form") {
  for (const std::string bad : {"KSA_NAME", "=x", "1A=x", "A-B=x", "A B=x", ""}) {
    INFO(bad);
    auto a = ParseAssignment(bad, "--set");
    REQUIRE_FALSE(a);
    CHECK(tputrain::core::IsUsageError(a.error()));
    CHECK_THAT(a.error().message, Catch::StartsWith("--set '" + bad + "'"));
  }
}

TEST_CASE("value types are checked with the origin in the message") {
  CHECK(CheckValueType("N", "12", ValueType::kInt, "--set"));
  CHECK(CheckValueType("N", "-1", ValueType::kInt, "--set"));
  auto bad = CheckValueType("N", "1.5", ValueType::kInt, "--set");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--set: N must be an integer, got '1.5'");
  CHECK_FALSE(CheckValueType("B", "yes", ValueType::kBool, "--values v.yaml"));
  CHECK(CheckValueType("B", "false", ValueType::kBool, "--values v.yaml"));
}

TEST_CASE("a values file is a flat mapping of names to scalars") {
  auto ok = ParseValuesYaml("KSA_NAME: ray-ksa\nNUM_SLICES: 2\nEMPTY:\nQUOTED: \"4\"\n", "v.yaml");
  REQUIRE(ok);
  CHECK(ok->at("KSA_NAME") == "ray-ksa");
  CHECK(ok->at("NUM_SLICES") == "2");
  CHECK(ok->at("EMPTY").empty());
  CHECK(ok->at("QUOTED") == "4");
  CHECK_THAT(ParseValuesYaml("A:\n  b: c\n", "v.yaml").error().message, Catch::Contains("A: expected a single value"));
  CHECK_THAT(ParseValuesYaml("- a\n", "v.yaml").error().message, Catch::Contains("expected a mapping"));
  CHECK_THAT(ParseValuesYaml("a: [\n", "v.yaml").error().message, Catch::Contains("not valid YAML"));
  CHECK_THAT(ParseValuesYaml("not-a-name: x\n", "v.yaml").error().message, Catch::Contains("not a variable name"));
  CHECK_THAT(LoadValuesFile("/nonexistent/values.yaml").error().message, Catch::Contains("cannot read"));
}
