// Every built-in template, rendered by the binary with the seed's values, validated by real
// validators from PyPI (scripts/peers/python-tools.sh): the project's CRDs (data/crds, with
// defaults applied first) for RayCluster, LeaderWorkerSet and JobSet, kubernetes-validate for
// the built-in kinds. The trainer script is compiled by Python too.
#include <cstdlib>
#include <filesystem>

#include <catch2/catch.hpp>

#include "render/temp_dir.h"
#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunProcess;
using tputrain::testing::TempDir;

namespace {

namespace fs = std::filesystem;

std::string ToolsPython() {
  const char* cache = std::getenv("TPUTRAIN_TEST_CACHE");
  const char* home = std::getenv("HOME");
  const std::string root = cache && *cache ? cache : std::string(home ? home : "") + "/.cache/tputrain-test";
  return root + "/python-tools/bin/python";
}

const std::string kSource = TPUTRAIN_SOURCE_DIR;

std::vector<std::string> RenderInto(const TempDir& dir, const std::string& name) {
  const std::string out = dir.path() + "/" + name;
  auto result = tputrain::testing::RunInProcess(
      {.argv = {tputrain::testing::TputrainBinary(), "render", name, "--values",
                kSource + "/tests/render/seed-values/" + name + ".yaml", "-o", out},
       .env = {{"TPUTRAIN_BUCKET", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}},
       .working_dir = dir.path()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(out)) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("the validator venv exists (scripts/peers/python-tools.sh)") {
  INFO("missing " << ToolsPython() << "; run scripts/setup-test-peers.sh");
  REQUIRE(fs::exists(ToolsPython()));
}

TEST_CASE("every object of every built-in template validates against its schema") {
  REQUIRE(fs::exists(ToolsPython()));
  TempDir dir;
  const std::vector<std::string> templates = {"raycluster-maxtext",
                                              "raycluster-cpu",
                                              "jetstream-pathways-405b",
                                              "jetstream-pathways-disagg-70b",
                                              "checkpoint-converter",
                                              "saxml",
                                              "vllm",
                                              "vllm-multihost"};
  std::vector<std::string> argv = {ToolsPython(), kSource + "/tests/render/validate_manifests.py", "--crds",
                                   kSource + "/data/crds"};
  for (const auto& name : templates) {
    for (const auto& file : RenderInto(dir, name)) argv.push_back(file);
  }
  auto result = RunProcess({.argv = argv});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 0);
  // The objects the seeds apply, each checked by the right schema.
  for (const char* line :
       {"RayCluster/maxtext-tpu-cluster (CRD ray.io/v1)", "RayCluster/maxtext-cpu-smoke (CRD ray.io/v1)",
        "LeaderWorkerSet/jetstream-pathways (CRD leaderworkerset.x-k8s.io/v1)",
        "JobSet/sax-model-server-set (CRD jobset.x-k8s.io/v1alpha2)", "Service/jetstream-svc (kubernetes",
        "Job/checkpoint-converter (kubernetes", "Deployment/sax-admin-server (kubernetes",
        "Deployment/sax-http (kubernetes", "Service/sax-http-lb (kubernetes", "ServiceAccount/sax-sa (kubernetes",
        "Deployment/vllm-tpu (kubernetes", "LeaderWorkerSet/vllm-tpu (CRD leaderworkerset.x-k8s.io/v1)",
        "Service/vllm-service (kubernetes"}) {
    CHECK_THAT(result.out, Catch::Contains(line));
  }
  CHECK(std::count(result.out.begin(), result.out.end(), '\n') == 16);
  CHECK(result.out.find("INVALID") == std::string::npos);
}

TEST_CASE("the validator rejects what an API server would: proof it is not a rubber stamp") {
  REQUIRE(fs::exists(ToolsPython()));
  TempDir dir;
  const std::string crds = kSource + "/data/crds";
  const std::string script = kSource + "/tests/render/validate_manifests.py";
  const auto bad_crd = dir.Write("bad-ray.yaml",
                                 "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: r\nspec:\n"
                                 "  headGroupSpec:\n    template:\n      spec:\n        containers: \"nope\"\n"
                                 "  workerGroupSpecs:\n    - groupName: g\n      numOfHost: 4\n      template: {}\n");
  auto crd = RunProcess({.argv = {ToolsPython(), script, "--crds", crds, bad_crd}});
  CHECK(crd.exit_code == 1);
  CHECK_THAT(crd.out, Catch::Contains("INVALID"));
  CHECK_THAT(crd.out, Catch::Contains("containers"));
  CHECK_THAT(crd.out, Catch::Contains("numOfHost: unknown field"));
  const auto bad_builtin = dir.Write("bad-svc.yaml",
                                     "apiVersion: v1\nkind: Service\nmetadata:\n  name: Bad_Name\nspec:\n"
                                     "  ports:\n    - port: \"8888\"\n  typo: 1\n");
  auto builtin = RunProcess({.argv = {ToolsPython(), script, "--crds", crds, bad_builtin}});
  CHECK(builtin.exit_code == 1);
  CHECK_THAT(builtin.out, Catch::Contains("not a DNS subdomain name"));
  // Defaults are applied first: a RayCluster without minReplicas/maxReplicas is valid, as a
  // real API server accepts it.
  const auto defaults = dir.Write("defaults.yaml",
                                  "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: r\nspec:\n"
                                  "  headGroupSpec:\n    template:\n      spec:\n        containers:\n"
                                  "          - name: h\n            image: i\n"
                                  "  workerGroupSpecs:\n    - groupName: g\n      template:\n        spec:\n"
                                  "          containers:\n            - name: w\n              image: i\n");
  auto defaulted = RunProcess({.argv = {ToolsPython(), script, "--crds", crds, defaults}});
  INFO(defaulted.out << defaulted.err);
  CHECK(defaulted.exit_code == 0);
}

TEST_CASE("the rendered trainer script is valid Python") {
  REQUIRE(fs::exists(ToolsPython()));
  TempDir dir;
  auto files = RenderInto(dir, "maxtext-ray-image");
  REQUIRE(files.size() == 2);
  auto result = RunProcess(
      {.argv = {ToolsPython(), "-m", "py_compile", dir.path() + "/maxtext-ray-image/maxtext_ray_trainer.py"}});
  INFO(result.err);
  CHECK(result.exit_code == 0);
}

TEST_CASE("serve up --engine vllm --dry-run prints objects that validate: v6e-8 one host, v6e-16 multi host") {
  REQUIRE(fs::exists(ToolsPython()));
  TempDir dir;
  std::vector<std::string> argv = {ToolsPython(), kSource + "/tests/render/validate_manifests.py", "--crds",
                                   kSource + "/data/crds"};
  for (const auto& [tpu_type, file] : {std::pair{"v6e-8", "one-host.yaml"}, std::pair{"v6e-16", "multi-host.yaml"}}) {
    auto printed = tputrain::testing::RunInProcess(
        {.argv = {tputrain::testing::TputrainBinary(), "serve", "up", "--engine", "vllm", "--model",
                  "meta-llama/Llama-3.3-70B-Instruct", "--tpu-type", tpu_type, "--dry-run"},
         .env = {{"HOME", dir.path()}, {"KUBECONFIG", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}},
         .working_dir = dir.path()});
    INFO(printed.err);
    REQUIRE(printed.exit_code == 0);
    argv.push_back(dir.Write(file, printed.out));
  }
  auto result = RunProcess({.argv = argv});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("one-host.yaml: Deployment/vllm-tpu (kubernetes"));
  CHECK_THAT(result.out,
             Catch::Contains("multi-host.yaml: LeaderWorkerSet/vllm-tpu (CRD leaderworkerset.x-k8s.io/v1)"));
  CHECK(std::count(result.out.begin(), result.out.end(), '\n') == 4);
}

TEST_CASE("serve up --engine vllm --hf-token-file: a Secret before the pods, its token never printed") {
  TempDir dir;
  const std::string token = "hf_TopSecretToken42";
  const std::string file = dir.Write("token", token + "\n");
  for (const char* format : {"table", "json"}) {
    auto printed = tputrain::testing::RunInProcess(
        {.argv = {tputrain::testing::TputrainBinary(), "serve", "up", "--engine", "vllm", "--model",
                  "meta-llama/Llama-3.3-70B-Instruct", "--tpu-type", "v6e-16", "--hf-token-file", file, "--dry-run",
                  "--verbose", "--format", format},
         .env = {{"HOME", dir.path()}, {"KUBECONFIG", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}},
         .working_dir = dir.path()});
    INFO(format << ": " << printed.err);
    REQUIRE(printed.exit_code == 0);
    CHECK_THAT(printed.out, Catch::Contains("Secret"));
    CHECK_THAT(printed.out, Catch::Contains("<redacted>"));
    CHECK(printed.out.find("hf-token") < printed.out.find("LeaderWorkerSet"));
    for (const std::string& secret : {token, std::string("aGZfVG9wU2VjcmV0VG9rZW40Mg")}) {  // and its base64
      CHECK(printed.out.find(secret) == std::string::npos);
      CHECK(printed.err.find(secret) == std::string::npos);
    }
  }
}
