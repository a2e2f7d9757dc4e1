// serve up and serve down as one command for every engine, in-process over the fake transport:
// what --dry-run shows with no cluster at hand, and the options an engine does not take.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "render/temp_dir.h"
#include "testing/scoped_process.h"
#include "testing/test_factory.h"

namespace tputrain::testing {
namespace {

// An environment with no kubeconfig where kubectl looks, no run, no user templates.
std::map<std::string, std::optional<std::string>> NoClusterEnv(const TempDir& home) {
  return {{"HOME", home.path()},
          {"KUBECONFIG", std::nullopt},
          {"XDG_STATE_HOME", home.path() + "/state"},
          {"TPUTRAIN_RUN", std::nullopt},
          {"TPUTRAIN_BUCKET", std::nullopt},
          {"TPUTRAIN_TEMPLATE_DIR", std::nullopt},
          {"CLOUDSDK_CONFIG", home.path() + "/gcloud"}};
}

TEST_CASE("serve up --dry-run with no cluster at hand shows every engine's objects and sends nothing") {
  TempDir home;
  struct Case {
    std::vector<std::string> args;
    std::string engine;
    std::string workload;
  };
  for (const auto& c : std::vector<Case>{
           {{"--model", "llama3.1-405b", "--bucket", "my-bucket"}, "jetstream", "LeaderWorkerSet/jetstream-pathways"},
           {{"--model", "saxml-175b-test", "--bucket", "my-bucket"}, "saxml", "JobSet/sax-model-server-set"},
           {{"--engine", "vllm", "--model", "org/model", "--tpu-type", "v6e-8"}, "vllm", "Deployment/vllm-tpu"}}) {
    TestFactory factory;
    std::vector<std::string> argv = {TputrainBinary(), "serve", "up"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.insert(argv.end(), {"--project", "my-project", "--location", "us-east5-b", "--dry-run", "--format", "json"});
    auto result = RunInProcess(factory, {.argv = argv, .env = NoClusterEnv(home)});
    INFO(c.engine << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    const auto printed = nlohmann::json::parse(result.out);
    CHECK(printed["engine"] == c.engine);
    CHECK(printed["dry_run"] == true);
    CHECK(printed["workload"] == c.workload);
    CHECK(printed["applied"].empty());  // no API server checked them: none was at hand
    REQUIRE_FALSE(printed["objects"].empty());
    bool workload_shown = false;
    for (const auto& object : printed["objects"]) {
      workload_shown =
          workload_shown ||
          object["kind"].get<std::string>() + "/" + object["metadata"]["name"].get<std::string>() == c.workload;
    }
    CHECK(workload_shown);
    CHECK(factory.transport.requests().empty());
  }

  // The table: what it is, then the objects as YAML.
  TestFactory factory;
  auto table =
      RunInProcess(factory, {.argv = {TputrainBinary(), "serve", "up", "--model", "saxml-175b-test", "--bucket",
                                      "my-bucket", "--project", "my-project", "--location", "us-east1", "--dry-run"},
                             .env = NoClusterEnv(home)});
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.rfind("# /sax/test/spmd on v5litepod-32 (saxml): nothing applied\n# would publish: {", 0) == 0);
  CHECK_THAT(table.out, Catch::Contains("---\napiVersion: \"jobset.x-k8s.io/v1alpha2\"\nkind: \"JobSet\""));
  CHECK(factory.transport.requests().empty());
}

TEST_CASE("serve up and down refuse an option the engine does not take, naming the engines that do") {
  TempDir home;
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {{"up", "--engine", "vllm", "--model", "llama3-8b", "--expose"}, "--expose: only for --engine saxml"},
           {{"up", "--model", "saxml-175b-test", "--disaggregated"}, "--disaggregated: only for --engine jetstream"},
           {{"up", "--model", "llama3.1-405b", "--hf-config", "c.json"}, "--hf-config: only for --engine vllm"},
           {{"up", "--engine", "vllm", "--model", "llama3-8b", "--bucket", "b-1"},
            "--bucket: only for --engine jetstream or saxml"},
           {{"down", "--model", "llama3.1-405b", "--replicas", "2", "--yes"}, "--replicas: only for --engine saxml"},
           {{"down", "--engine", "vllm", "--model", "llama3-8b", "--tpu-type", "v6e-8", "--yes"},
            "--tpu-type: only for --engine jetstream or saxml (vLLM's: what to delete is the ledger's)"},
           {{"up", "--engine", "tgi", "--model", "llama3-8b"}, "--engine"}}) {
    TestFactory factory;
    std::vector<std::string> argv = {TputrainBinary(), "serve"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto result = RunInProcess(factory, {.argv = argv, .env = NoClusterEnv(home)});
    INFO(c.args[0] << " " << c.args[1] << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK(factory.transport.requests().empty());
  }
}

}  // namespace
}  // namespace tputrain::testing
