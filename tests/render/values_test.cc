#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "tputrain/render/values.h"

using namespace tputrain::render;

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
