#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/pty_process.h"
#include "testing/scoped_process.h"
#include "testing/test_factory.h"
#include "tputrain/core/version.h"

using tputrain::testing::ProcessOptions;
using tputrain::testing::RunInProcess;
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
  auto result = RunInProcess({.argv = {TputrainBinary(), "--help"}});
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("--format"));
  CHECK_THAT(result.out, Catch::Contains("Examples:"));
}

// The node pool flags are checked against the TPU catalog before any call (the dry run sends
// nothing and needs no credentials): one line naming the flag, exit 2.
TEST_CASE("node pool flags that contradict the TPU slice are one usage line naming the flag") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tpu-type", "v6e-16", "--tpu-topology", "2x2"}, "ERROR: --tpu-topology: v6e-16 is 4x4, not 2x2\n"},
      {{"--tpu-type", "v6e-16", "--machine-type", "ct5lp-hightpu-4t"},
       "ERROR: --machine-type: v6e-16 runs on ct6e-standard-4t, not ct5lp-hightpu-4t\n"},
      {{"--tpu-type", "v6e-16", "--num-nodes", "3"}, "ERROR: --num-nodes: v6e-16 (4x4) has 4 hosts, not 3\n"},
      {{"--tpu-topology", "4x4"}, "ERROR: --machine-type: required with --tpu-topology (or give --tpu-type)\n"},
      {{"--machine-type", "n2-standard-4", "--num-nodes", "-3"},
       "ERROR: --num-nodes: expected a positive node count\n"},
  };
  for (const auto& [flags, expected] : cases) {
    std::vector<std::string> argv = {TputrainBinary(), "nodepool", "create",     "p",          "--cluster", "c",
                                     "--project",      "p",        "--location", "us-east5-b", "--dry-run"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto result = RunInProcess({.argv = argv});
    INFO(flags.front() << " " << flags.at(1));
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err == expected);
  }
}

// A name never becomes a path: it is checked against the API's pattern before any call, under
// --dry-run too, and an unchecked one would still go out as one encoded segment.
TEST_CASE("a name, project or location that could escape its URL path is one usage line, exit 2") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"nodepool", "delete", "x/../../../victim", "--cluster", "ray-tpu", "--yes"},
       "ERROR: NAME: expected lowercase letters, digits and hyphens, starting with a letter and not ending with a "
       "hyphen, at most 40 characters, got 'x/../../../victim'\n"},
      {{"nodepool", "delete", "pool", "--cluster", "..", "--yes"},
       "ERROR: --cluster: expected lowercase letters, digits and hyphens, starting with a letter and not ending with "
       "a hyphen, at most 40 characters, got '..'\n"},
      {{"cluster", "delete", "ray-tpu", "--yes", "--project", "p/../q"},
       "ERROR: --project: expected a project id: lowercase letters, digits and hyphens, starting with a letter, at "
       "most 30 characters, got 'p/../q'\n"},
      {{"tpu-vm", "delete", "vm/../../other", "--yes"},
       "ERROR: NAME: expected lowercase letters, digits and hyphens, starting with a letter and not ending with a "
       "hyphen, at most 63 characters, got 'vm/../../other'\n"},
  };
  for (const auto& [args, expected] : cases) {
    for (bool dry_run : {false, true}) {
      std::vector<std::string> argv = {TputrainBinary()};
      argv.insert(argv.end(), args.begin(), args.end());
      argv.insert(argv.end(), {"--location", "us-east5-b"});
      if (std::find(args.begin(), args.end(), "--project") == args.end()) argv.insert(argv.end(), {"--project", "p"});
      if (dry_run) argv.push_back("--dry-run");
      // No credentials and an unreachable API: anything sent would fail differently.
      auto result = RunInProcess({.argv = argv,
                                  .env = {{"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent"},
                                          {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", "http://127.0.0.1:9/"},
                                          {"CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU", "http://127.0.0.1:9/"}}});
      INFO(args.at(0) << " " << args.at(2) << (dry_run ? " --dry-run" : ""));
      CHECK(result.exit_code == 2);
      CHECK(result.out.empty());
      CHECK(result.err == expected);
    }
  }
}

// On a terminal a delete asks; "n" (or anything but yes) deletes nothing and, as gcloud's
// "Aborted by user", exits 1, so a script cannot read a decline as done. Nothing is sent before
// the answer: the API endpoint is a closed port.
TEST_CASE("declining a delete on a terminal exits 1 and sends nothing") {
  tputrain::testing::PtyProcess remove(
      {TputrainBinary(), "cluster", "delete", "ray-tpu", "--project", "p", "--location", "us-east5-b"},
      {{"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", "http://127.0.0.1:9/"},
       {"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent"}});
  REQUIRE(remove.ReadUntil("[y/N]", std::chrono::seconds(30)));
  remove.Type("n\n");
  CHECK(remove.Wait() == 1);
  remove.ReadUntil("nothing deleted", std::chrono::seconds(5));
  CHECK_THAT(remove.output(), Catch::Contains("Aborted by user: nothing deleted."));
}

// A CI leak check runs `cleanup --run ID --dry-run --detailed-exitcode`: a wrong or empty id must
// fail it, not pass it as "nothing to delete".
TEST_CASE("cleanup of an unknown or empty --run is one usage line, exit 2") {
  char pattern[] = "/tmp/tputrain-cli-state-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string state_dir = pattern;
  auto unknown = RunInProcess({.argv = {TputrainBinary(), "cleanup", "--run", "no-such-run", "--state-dir", state_dir,
                                        "--dry-run", "--detailed-exitcode"}});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "ERROR: --run: no run 'no-such-run' in " + state_dir + " (tputrain runs list)\n");
  auto empty = RunInProcess({.argv = {TputrainBinary(), "cleanup", "--run", "", "--state-dir", state_dir, "--yes"}});
  CHECK(empty.exit_code == 2);
  CHECK(empty.err == "ERROR: --run: expected a value, got ''\n");
  rmdir(pattern);
}

// Counts are checked where they are parsed: nothing negative, zero or past the limit is sent,
// and nothing is silently clamped or defaulted.
TEST_CASE("a count that is negative, zero or too large is one usage line naming the flag") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"submit", "--model", "maxtext-cpu-smoke", "--steps", "99999999999999999999"},
       "ERROR: --steps: expected a whole number from 1 to 1000000000000, got '99999999999999999999'\n"},
      {{"submit", "--model", "maxtext-cpu-smoke", "--steps", "0"},
       "ERROR: --steps: expected a whole number from 1 to 1000000000000, got '0'\n"},
      {{"cluster", "create", "c", "--num-nodes", "-3"},
       "ERROR: --num-nodes: expected a whole number from 1 to 1000, got '-3'\n"},
      {{"cluster", "create", "c", "--num-nodes", "0"},
       "ERROR: --num-nodes: expected a whole number from 1 to 1000, got '0'\n"},
  };
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> argv = {TputrainBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--project", "p", "--location", "us-east5-b", "--dry-run"});
    auto result = RunInProcess({.argv = argv});
    INFO(args.at(0) << " " << args.at(args.size() - 2) << " " << args.back());
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err == expected);
  }
}

// What CLI11 refuses reaches people in tputrain's words: the flag, what was expected, what came.
TEST_CASE("flags CLI11 refuses are one line naming the flag and what was expected") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"cluster", "create", "c", "--num-slices", "0"}, "ERROR: --num-slices: expected 1 to 64, got 0\n"},
      {{"nodepool", "create", "p", "--cluster", "c", "--num-nodes", "abc"},
       "ERROR: --num-nodes: expected a number, got 'abc'\n"},
      {{"nodepool", "create", "p", "--cluster", "c", "--placement-type", "X"},
       "ERROR: --placement-type: expected one of COMPACT, got 'X'\n"},
      {{"tpu-vm", "create"}, "ERROR: names: required (see --help)\n"},
  };
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> argv = {TputrainBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--project", "p", "--location", "us-east5-b", "--dry-run"});
    auto result = RunInProcess({.argv = argv});
    INFO(args.at(0) << " " << args.at(1));
    CHECK(result.exit_code == 2);
    CHECK(result.err == expected);
  }
}

TEST_CASE("services enable --dry-run prints its requests as --format asks") {
  const std::vector<std::string> argv = {
      TputrainBinary(), "services", "enable", "container.googleapis.com", "--project", "p",
      "--dry-run",      "--format", "json"};
  auto result = RunInProcess({.argv = argv});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  auto printed = nlohmann::json::parse(result.out, nullptr, false);
  REQUIRE(printed.is_object());
  CHECK(printed["dry_run"] == true);
  REQUIRE(printed["requests"].size() == 1);
  CHECK(printed["requests"][0]["method"] == "POST");
  CHECK(printed["requests"][0]["url"].get<std::string>().ends_with(
      "/v1/projects/p/services/container.googleapis.com:enable"));
}
