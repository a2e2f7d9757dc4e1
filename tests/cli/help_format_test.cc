// Every leaf command documents itself with its own example, and --format is honoured (stdout is
// one JSON document) or refused in one line (exit 2) — never silently ignored.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::RunProcess;
using tputrain::testing::TputrainBinary;

namespace {

std::string Help(const std::vector<std::string>& path) {
  std::vector<std::string> argv = {TputrainBinary()};
  argv.insert(argv.end(), path.begin(), path.end());
  argv.push_back("--help");
  auto result = RunInProcess({.argv = argv});
  REQUIRE(result.exit_code == 0);
  return result.out;
}

// The names under "Subcommands:" in a help page.
std::vector<std::string> Subcommands(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream lines(help);
  std::string line;
  bool in_section = false;
  while (std::getline(lines, line)) {
    if (line == "Subcommands:") {
      in_section = true;
    } else if (in_section && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_section && line.empty()) {
      in_section = false;
    }
  }
  return names;
}

void CollectLeaves(const std::vector<std::string>& path, std::vector<std::vector<std::string>>& leaves) {
  auto children = Subcommands(Help(path));
  if (children.empty()) leaves.push_back(path);
  for (const auto& child : children) {
    auto next = path;
    next.push_back(child);
    CollectLeaves(next, leaves);
  }
}

}  // namespace

TEST_CASE("every leaf command's --help shows an example of that command") {
  std::vector<std::vector<std::string>> leaves;
  CollectLeaves({}, leaves);
  CHECK(leaves.size() >= 40);
  for (const auto& leaf : leaves) {
    std::string command = "tputrain";
    for (const auto& word : leaf) command += " " + word;
    const std::string help = Help(leaf);
    INFO(command << " --help:\n" << help);
    const auto examples = help.find("\nExample");
    REQUIRE(examples != std::string::npos);
    CHECK(help.find(command, examples) != std::string::npos);
  }
}

TEST_CASE("--format json is one JSON document on stdout, or one line refusing it") {
  const std::string token = "/proc/self/cmdline";  // any readable file serves as an access token
  const std::vector<std::vector<std::string>> honoured = {
      {"plan", "--model", "llama3-8b", "--accelerator", "v6e"},
      {"config", "show"},
      {"render", "--list"},
      {"cluster", "create", "c", "--tpu-type", "v6e-16", "--dry-run"},
      {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--dry-run"},
      {"bucket", "create", "ckpt", "--dry-run"},
      {"iam", "service-account", "create", "sax-sa1", "--role", "roles/storage.objectUser", "--dry-run"},
      {"submit", "--model", "maxtext-cpu-smoke", "--address", "http://127.0.0.1:8265", "--dry-run"},
      {"auth", "status", "--access-token-file", token},
      {"auth", "print-access-token", "--access-token-file", token},
  };
  for (const auto& args : honoured) {
    std::vector<std::string> argv = {TputrainBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--project", "p", "--location", "us-east5-b", "--format", "json"});
    auto result = RunInProcess({.argv = argv, .env = {{"XDG_STATE_HOME", "/nonexistent/state"}}, .working_dir = "/"});
    INFO(args.at(0) << " " << args.at(1) << "\nstdout: " << result.out << "\nstderr: " << result.err);
    CHECK(result.exit_code == 0);
    CHECK_FALSE(nlohmann::json::parse(result.out, nullptr, false).is_discarded());
  }
  const std::vector<std::vector<std::string>> refused = {
      {"render", "raycluster-maxtext", "--set", "KSA_NAME=a", "--set", "DOCKER_IMAGE=b", "--set", "GS_BUCKET=c"},
      {"emulator", "start", "--port", "0"},
  };
  for (const auto& args : refused) {
    std::vector<std::string> argv = {TputrainBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--format", "json"});
    auto result = RunProcess({.argv = argv, .working_dir = "/"}, std::chrono::seconds(20));
    INFO(args.at(0) << " " << args.at(1) << "\nstderr: " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err.rfind("ERROR: --format json: ", 0) == 0);
  }
}
