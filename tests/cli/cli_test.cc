#include <catch2/catch.hpp>

#include "testing/scoped_process.h"
#include "tputrain/core/version.h"

using tputrain::testing::ProcessOptions;
using tputrain::testing::RunProcess;
using tputrain::testing::TputrainBinary;

TEST_CASE("--version prints the version and exits 0") {
  auto result = RunProcess({.argv = {TputrainBinary(), "--version"}});
  CHECK(result.exit_code == 0);
  CHECK(result.out == std::string("tputrain ") + tputrain::core::kVersion + "\n");
}

TEST_CASE("no command is a usage error, exit 2, on stderr") {
  auto result = RunProcess({.argv = {TputrainBinary()}});
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Catch::Contains("ERROR:"));
}

TEST_CASE("an unknown flag is a usage error that names it") {
  auto result = RunProcess({.argv = {TputrainBinary(), "--no-such-flag"}});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("--no-such-flag"));
}

TEST_CASE("--help lists global flags and examples") {
  auto result = RunProcess({.argv = {TputrainBinary(), "--help"}});
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("--format"));
  CHECK_THAT(result.out, Catch::Contains("Examples:"));
}
