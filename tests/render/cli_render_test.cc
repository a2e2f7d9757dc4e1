// `tputrain render` end to end: the built binary, its built-in templates found beside it.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "render/temp_dir.h"
#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::ProcessOptions;
using tputrain::testing::ProcessResult;
using tputrain::testing::TempDir;
using tputrain::testing::TputrainBinary;

namespace {

const std::string kSeedValues = std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/";

// Runs tputrain in an empty home and working directory, so no gcloud or tputrain.yaml
// configuration of the machine leaks into the values.
ProcessResult Tputrain(const TempDir& home, std::vector<std::string> args,
                       std::map<std::string, std::optional<std::string>> env = {}) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = {{"HOME", home.path()},
                 {"CLOUDSDK_CONFIG", home.path() + "/gcloud"},
                 {"TPUTRAIN_PROJECT", std::nullopt},
                 {"TPUTRAIN_LOCATION", std::nullopt},
                 {"TPUTRAIN_BUCKET", std::nullopt},
                 {"TPUTRAIN_CLUSTER", std::nullopt},
                 {"CLOUDSDK_CORE_PROJECT", std::nullopt},
                 {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}};
  for (auto& [name, value] : env) options.env[name] = value;
  options.working_dir = home.path();
  return tputrain::testing::RunInProcess(options);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("render --list shows every built-in template on one line each") {
  TempDir home;
  auto result = Tputrain(home, {"render", "--list"});
  REQUIRE(result.exit_code == 0);
  for (const char* name :
       {"raycluster-maxtext", "maxtext-ray-image", "jetstream-pathways-405b", "jetstream-pathways-disagg-70b",
        "checkpoint-converter", "saxml", "vllm", "vllm-multihost"}) {
    CHECK_THAT(result.out, Catch::Contains(std::string("\n") + name + " "));
  }
  auto json = Tputrain(home, {"render", "--list", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"name\": \"saxml\""));
}

TEST_CASE("render TEMPLATE --describe lists variables, defaults, computed values and meaning") {
  TempDir home;
  auto result = Tputrain(home, {"render", "raycluster-maxtext", "--describe"});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("KSA_NAME"));
  CHECK_THAT(result.out, Catch::Contains("required"));
  CHECK_THAT(result.out, Catch::Contains("maxtext-tpu-cluster"));
  CHECK_THAT(result.out, Catch::Contains("TPU_TOPOLOGY"));
  CHECK_THAT(result.out, Catch::Contains("computed"));
  CHECK_THAT(result.out, Catch::Contains("4x4"));
}

TEST_CASE("render writes the seed's RayCluster to stdout for kubectl apply -f -") {
  TempDir home;
  auto result = Tputrain(home, {"render", "raycluster-maxtext", "--values", kSeedValues + "raycluster-maxtext.yaml"});
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());
  auto docs = YAML::LoadAll(result.out);
  REQUIRE(docs.size() == 1);
  CHECK(docs[0]["kind"].Scalar() == "RayCluster");
}

TEST_CASE("a multi-file YAML template is one multi-document stream on stdout") {
  TempDir home;
  auto result = Tputrain(home, {"render", "saxml", "--set", "BUCKET=b"});
  REQUIRE(result.exit_code == 0);
  std::size_t objects = 0;
  for (const auto& doc : YAML::LoadAll(result.out)) objects += doc.IsNull() ? 0 : 1;
  CHECK(objects == 5);
}

TEST_CASE("missing variables: exit 2, every name with its lines, nothing on stdout") {
  TempDir home;
  auto result = Tputrain(home, {"render", "raycluster-maxtext", "--set", "KSA_NAME=ksa"});
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Catch::StartsWith("ERROR: no value for 2 variables: DOCKER_IMAGE (raycluster.yaml line "));
  CHECK_THAT(result.err, Catch::Contains("GS_BUCKET (raycluster.yaml line"));
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
}

TEST_CASE("an unknown template: exit 2 naming it and the known ones") {
  TempDir home;
  auto result = Tputrain(home, {"render", "raycluster-maxtex"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("unknown template 'raycluster-maxtex'"));
  CHECK_THAT(result.err, Catch::Contains("raycluster-maxtext"));
  auto traversal = Tputrain(home, {"render", "../templates/saxml"});
  CHECK(traversal.exit_code == 2);
  CHECK_THAT(traversal.err, Catch::Contains("TEMPLATE"));
}

TEST_CASE("bad --set syntax: exit 2 naming the flag and the form expected") {
  TempDir home;
  auto result = Tputrain(home, {"render", "saxml", "--set", "BUCKET"});
  CHECK(result.exit_code == 2);
  CHECK(result.err == "ERROR: --set 'BUCKET': expected NAME=VALUE (e.g. --set KSA_NAME=ray-ksa)\n");
  auto name = Tputrain(home, {"render", "saxml", "--set", "9X=1"});
  CHECK(name.exit_code == 2);
  CHECK_THAT(name.err, Catch::Contains("not a variable name"));
  auto values = Tputrain(home, {"render", "saxml", "--values", home.Write("bad.yaml", "BUCKET: [a]\n")});
  CHECK(values.exit_code == 2);
  CHECK_THAT(values.err, Catch::Contains("BUCKET: expected a single value"));
}

TEST_CASE("TEMPLATE is required unless --list") {
  TempDir home;
  auto result = Tputrain(home, {"render"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("TEMPLATE is required"));
}

TEST_CASE("-o DIR writes each file; several non-YAML files need it") {
  TempDir home;
  auto refused = Tputrain(home, {"render", "maxtext-ray-image"});
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("-o DIR"));
  const std::string out = home.path() + "/image";
  auto result = Tputrain(home, {"render", "maxtext-ray-image", "-o", out});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == out + "/Dockerfile\n" + out + "/maxtext_ray_trainer.py\n");
  CHECK_THAT(ReadFile(out + "/Dockerfile"), Catch::Contains("FROM rayproject/ray:2.49.1-py312"));
}

TEST_CASE("-o DIR never writes through a symbolic link planted where a file goes") {
  TempDir home;
  const std::string victim = home.Write("victim.txt", "keep me\n");
  const std::string out = home.path() + "/image";
  std::filesystem::create_directories(out);
  std::filesystem::create_symlink(victim, out + "/Dockerfile");
  auto result = Tputrain(home, {"render", "maxtext-ray-image", "-o", out});
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.err == "ERROR: -o " + out + ": " + out +
                          "/Dockerfile is a symbolic link; tputrain does not write "
                          "through one\n");
  CHECK(ReadFile(victim) == "keep me\n");
}

TEST_CASE("--env takes values from the environment, below --values and --set") {
  TempDir home;
  auto result = Tputrain(home, {"render", "saxml", "--env"}, {{"BUCKET", "env-bucket"}, {"KSA_NAME", "env-ksa"}});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("gs://env-bucket/sax-root"));
  CHECK_THAT(result.out, Catch::Contains("name: \"env-ksa\""));
  auto without = Tputrain(home, {"render", "saxml"}, {{"BUCKET", "env-bucket"}});
  CHECK(without.exit_code == 2);  // the environment is opt-in
  auto set = Tputrain(home, {"render", "saxml", "--env", "--set", "BUCKET=flag"}, {{"BUCKET", "env-bucket"}});
  REQUIRE(set.exit_code == 0);
  CHECK_THAT(set.out, Catch::Contains("gs://flag/sax-root"));
}

TEST_CASE("configuration supplies BUCKET (TPUTRAIN_BUCKET) like any value") {
  TempDir home;
  auto result = Tputrain(home, {"render", "saxml"}, {{"TPUTRAIN_BUCKET", "configured"}});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("gs://configured/sax-root"));
}

TEST_CASE("a --template-dir template overrides a built-in one and is marked in --list") {
  TempDir home;
  home.Write("mine/saxml/template.yaml", "description: my saxml\nfiles: [cm.yaml]\n");
  home.Write("mine/saxml/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"${WHO}\"\n");
  const std::string dir = home.path() + "/mine";
  auto list = Tputrain(home, {"render", "--list", "--template-dir", dir});
  REQUIRE(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("my saxml [user, overrides built-in]"));
  auto result = Tputrain(home, {"render", "saxml", "--template-dir", dir, "--set", "WHO=me"});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"me\"\n");
}

TEST_CASE("TPUTRAIN_TEMPLATE_DIR adds templates before the built-in ones; one not there is named") {
  TempDir home;
  home.Write("only/one/template.yaml", "description: just one\nfiles: [cm.yaml]\n");
  home.Write("only/one/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n");
  auto result = Tputrain(home, {"render", "--list"}, {{"TPUTRAIN_TEMPLATE_DIR", home.path() + "/only"}});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("just one"));
  CHECK_THAT(result.out, Catch::Contains("\nsaxml "));
  auto missing =
      Tputrain(home, {"render", "saxml", "--set", "BUCKET=b"}, {{"TPUTRAIN_TEMPLATE_DIR", home.path() + "/not-there"}});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "ERROR: TPUTRAIN_TEMPLATE_DIR or --template-dir: expected an existing directory, got '" +
                           home.path() + "/not-there'\n");
}

TEST_CASE("an unknown template's error says how to add one: --template-dir or TPUTRAIN_TEMPLATE_DIR") {
  TempDir home;
  auto result = Tputrain(home, {"render", "my-own"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("--template-dir DIR or TPUTRAIN_TEMPLATE_DIR"));
}

// The binary alone, as a user who copied it or built it elsewhere has it: copied into a directory
// of its own, run from another with no source tree and an empty template directory, it renders
// every built-in template with each one's test values (copied in too).
TEST_CASE("the binary alone renders every template, with an empty template directory") {
  TempDir home;
  namespace fs = std::filesystem;
  fs::create_directories(home.path() + "/bin");
  fs::create_directories(home.path() + "/empty-templates");
  const std::string binary = home.path() + "/bin/tputrain";
  fs::copy_file(TputrainBinary(), binary);
  const auto alone = [&](std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {binary};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = {{"HOME", home.path()},
                   {"CLOUDSDK_CONFIG", home.path() + "/gcloud"},
                   {"TPUTRAIN_TEMPLATE_DIR", home.path() + "/empty-templates"},
                   {"TPUTRAIN_PROJECT", "p"},
                   {"TPUTRAIN_LOCATION", std::nullopt},
                   {"TPUTRAIN_BUCKET", std::nullopt},
                   {"TPUTRAIN_CLUSTER", std::nullopt},
                   {"CLOUDSDK_CORE_PROJECT", std::nullopt}};
    options.working_dir = home.path();
    return tputrain::testing::RunProcess(options);
  };
  auto list = alone({"render", "--list", "--format", "json"});
  REQUIRE(list.exit_code == 0);
  std::vector<std::string> names;
  for (const auto& entry : YAML::Load(list.out)) {
    CHECK(entry["builtin"].as<bool>());
    names.push_back(entry["name"].as<std::string>());
  }
  CHECK(names.size() >= 9);
  for (const auto& name : names) {
    INFO(name);
    const std::string values = home.Write("values/" + name + ".yaml", ReadFile(kSeedValues + name + ".yaml"));
    const std::string out = home.path() + "/out/" + name;
    auto rendered = alone({"render", name, "--values", values, "-o", out});
    INFO(rendered.err);
    CHECK(rendered.exit_code == 0);
    CHECK_FALSE(rendered.out.empty());
    for (const auto& path : fs::directory_iterator(out)) CHECK(fs::file_size(path.path()) > 0);
  }
}

TEST_CASE("a user template whose value retypes in YAML is refused with exit 2") {
  TempDir home;
  home.Write("t/cm/template.yaml", "description: cm\nfiles: [cm.yaml]\n");
  home.Write("t/cm/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  chips: ${CHIPS}\n");
  auto result = Tputrain(home, {"render", "cm", "--template-dir", home.path() + "/t", "--set", "CHIPS=4"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("cm.yaml:6"));
  CHECK_THAT(result.err, Catch::Contains("${CHIPS}=\"4\""));
}
