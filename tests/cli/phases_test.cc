// TPUTRAIN_PHASES=1: the phases of a command on stderr at exit (bench/phases.sh reads them), and
// libcurl loaded beside the command's own set-up only for a command that may send a request.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "testing/scoped_process.h"

using tputrain::testing::RunProcess;
using tputrain::testing::TputrainBinary;

namespace {

// The names of the phases printed, each with the thread it ran on ("libcurl.load@1").
std::vector<std::string> Phases(const std::string& err) {
  std::vector<std::string> phases;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag, name, begin, end, thread;
    if (!(words >> tag >> name) || tag != "phase" || name == "origin") continue;
    REQUIRE(words >> begin >> end >> thread);
    CHECK(std::stod(end) >= std::stod(begin));
    phases.push_back(name + "@" + thread);
  }
  return phases;
}

bool Has(const std::vector<std::string>& phases, const std::string& phase) {
  return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

}  // namespace

TEST_CASE("TPUTRAIN_PHASES=1 prints the phases; libcurl loads on a thread beside a command that may need it") {
  // `version` reports the loaded libcurl's version: it needs the library, and gets it early.
  auto version = RunProcess({.argv = {TputrainBinary(), "version"}, .env = {{"TPUTRAIN_PHASES", "1"}}});
  REQUIRE(version.exit_code == 0);
  CHECK_THAT(version.err, Catch::StartsWith("phase origin "));
  auto phases = Phases(version.err);
  CHECK(Has(phases, "cli.tree@0"));
  CHECK(Has(phases, "command@0"));
  CHECK(Has(phases, "libcurl.load@1"));

  // A command that never sends a request does not load it; nor does --help.
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"render", "--help"}, std::vector<std::string>{"cluster", "list", "--help"},
        std::vector<std::string>{"config", "show"}}) {
    std::vector<std::string> command = {TputrainBinary()};
    command.insert(command.end(), argv.begin(), argv.end());
    auto result = RunProcess({.argv = command, .env = {{"TPUTRAIN_PHASES", "1"}, {"TPUTRAIN_PROJECT", "p"}}});
    INFO(argv.front() << " " << argv.back());
    CHECK(result.exit_code == 0);
    CHECK_FALSE(Has(Phases(result.err), "libcurl.load@1"));
  }

  // Without the variable, nothing is printed.
  auto quiet = RunProcess({.argv = {TputrainBinary(), "version"}, .env = {{"TPUTRAIN_PHASES", std::nullopt}}});
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.find("phase ") == std::string::npos);
}
