#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::TputrainBinary;

TEST_CASE("plan --format json reproduces seed 003's arithmetic") {
  auto result = RunInProcess({.argv = {TputrainBinary(), "plan", "--model", "saxml-175b-test", "--format", "json"}});
  REQUIRE(result.exit_code == 0);
  auto plan = nlohmann::json::parse(result.out);
  CHECK(plan["accelerator_type"] == "v5litepod-32");
  CHECK(plan["topology"] == "4x8");
  CHECK(plan["chips_per_slice"] == 32);
  CHECK(plan["nodes_per_slice"] == 8);
  CHECK(plan["machine_type"] == "ct5lp-hightpu-4t");
  CHECK(plan["ici"].is_null());
  CHECK(result.err.empty());
}

TEST_CASE("plan shows seed 001's slice and ICI split in the table, with the reason") {
  auto result = RunInProcess({.argv = {TputrainBinary(), "plan", "--model", "llama3-8b", "--accelerator", "v6e"}});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("v6e-16 (16 chips, topology 4x4)"));
  CHECK_THAT(result.out, Catch::Contains("4 nodes of ct6e-standard-4t"));
  CHECK_THAT(result.out, Catch::Contains("ici_fsdp_parallelism=4 ici_tensor_parallelism=4"));
  CHECK_THAT(result.out, Catch::Contains("why: "));
}

TEST_CASE("plan --format yaml prints the same fields as YAML") {
  auto result = RunInProcess({.argv = {TputrainBinary(), "--format", "yaml", "plan", "--model", "llama3-8b"}});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("accelerator_type: \"v6e-16\""));
}

TEST_CASE("plan's bad input exits 2 with one line naming the flag and the choices") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{{{"--model", "gpt-9"}, "--model: unknown model 'gpt-9'; nearest: gpt3-"},
                                         {{"--model", "llama3-8b", "--accelerator", "h100"}, "v5p"},
                                         {{"--model", "llama3.1-405b", "--dtype", "fp4"}, "--dtype"},
                                         {{"--model", "llama3-8b", "--mode", "infer"}, "--mode"},
                                         {{"--model", "llama3-8b", "--slices", "0"}, "--slices"},
                                         {{"--mode", "train"}, "--model"}}) {
    std::vector<std::string> argv = {TputrainBinary(), "plan"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto result = RunInProcess({.argv = argv});
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
}

TEST_CASE("config show reports each value and its source") {
  auto result = RunInProcess({.argv = {TputrainBinary(), "config", "show", "--format", "json"},
                              .env = {{"CLOUDSDK_CORE_PROJECT", "env-project"},
                                      {"TPUTRAIN_PROJECT", std::nullopt},
                                      {"CLOUDSDK_CONFIG", "/nonexistent"}}});
  REQUIRE(result.exit_code == 0);
  auto json = nlohmann::json::parse(result.out);
  CHECK(json["project"]["value"] == "env-project");
  CHECK(json["project"]["source"] == "env CLOUDSDK_CORE_PROJECT");

  auto flagged = RunInProcess({.argv = {TputrainBinary(), "config", "show", "--project", "flag-project", "--zone",
                                        "us-east5-b", "--format", "json"},
                               .env = {{"CLOUDSDK_CORE_PROJECT", "env-project"}}});
  REQUIRE(flagged.exit_code == 0);
  auto flagged_json = nlohmann::json::parse(flagged.out);
  CHECK(flagged_json["project"]["value"] == "flag-project");
  CHECK(flagged_json["location"]["value"] == "us-east5-b");
}

TEST_CASE("every command's --help has a description and an example") {
  for (const char* command : {"plan", "config"}) {
    auto result = RunInProcess({.argv = {TputrainBinary(), command, "--help"}});
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.out, Catch::Contains("Usage:"));
  }
  auto show = RunInProcess({.argv = {TputrainBinary(), "config", "show", "--help"}});
  CHECK_THAT(show.out, Catch::Contains("Example"));
}
