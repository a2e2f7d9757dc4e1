// `tputrain job` without a Ray head: usage errors and --dry-run send nothing.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "testing/test_factory.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::testing {
namespace {

ProcessResult Tputrain(std::vector<std::string> args, std::map<std::string, std::optional<std::string>> env = {}) {
  args.insert(args.begin(), TputrainBinary());
  env.emplace("RAY_ADDRESS", std::nullopt);
  env.emplace("RAY_JOB_HEADERS", std::nullopt);
  return RunInProcess(ProcessOptions{args, env, "", "/tmp"});
}

// Nothing listens here, so any request that was sent would fail the command.
std::string DeadAddress() { return "http://127.0.0.1:" + std::to_string(FreeLoopbackPort()); }

}  // namespace

TEST_CASE("job usage errors name the flag and exit 2") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  std::string address = DeadAddress();
  for (const auto& c : std::vector<Case>{
           {{"job", "submit", "--address", address}, "-- COMMAND"},
           {{"job", "submit", "--address", address, "--runtime-env-json", "[1]", "--", "true"}, "--runtime-env-json"},
           {{"job", "submit", "--address", address, "--metadata-json", R"({"a": 1})", "--", "true"}, "--metadata-json"},
           {{"job", "submit", "--address", address, "--entrypoint-resources", R"({"TPU": "4"})", "--", "true"},
            "--entrypoint-resources"},
           {{"job", "submit", "--address", address, "--submission-id", "a/b", "--", "true"}, "--submission-id"},
           {{"job", "submit", "--address", address, "--working-dir", "/no/such/dir", "--", "true"}, "--working-dir"},
           {{"job", "status", "x", "--address", "ray://127.0.0.1:10001"}, "--address"},
           {{"job", "status", "x", "--address", address, "--header", "novalue"}, "--header"},
           {{"job", "status", "x", "--address", "http://example.com:8265"}, "only loopback"},
       }) {
    auto result = Tputrain(c.args);
    INFO(c.args[1] << " " << c.args.back() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(c.expected) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
}

TEST_CASE("job without an address says every way to give one") {
  auto result = Tputrain({"job", "list"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("RAY_ADDRESS") != std::string::npos);
}

TEST_CASE("job submit --dry-run prints the upload and the submit body and sends nothing") {
  std::string dir = "/tmp/tputrain-dryrun-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/train.py") << "print('x')\n";
  auto package = ray::PackageWorkingDir(dir);
  REQUIRE(package);
  auto result = Tputrain({"job", "submit", "--dry-run", "--format", "json", "--address", DeadAddress(), "--working-dir",
                          dir, "--runtime-env-json", R"({"env_vars": {"A": "1"}})", "--entrypoint-num-cpus", "1", "--",
                          "python", "train.py", "--name", "it's"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  auto requests = nlohmann::json::parse(result.out);
  REQUIRE(requests.size() == 2);
  CHECK(requests[0]["method"] == "PUT");
  CHECK(requests[0]["path"] == "/api/packages/gcs/" + package->name);
  auto body = requests[1]["body"];
  CHECK(requests[1]["path"] == "/api/jobs/");
  CHECK(body["entrypoint"] == "python train.py --name 'it'\"'\"'s'");
  CHECK(body["runtime_env"]["working_dir"] == package->uri());
  CHECK(body["runtime_env"]["env_vars"]["A"] == "1");
  CHECK(body["entrypoint_num_cpus"] == 1);
  CHECK_FALSE(body.contains("entrypoint_memory"));
  std::filesystem::remove_all(dir);
}

}  // namespace tputrain::testing
