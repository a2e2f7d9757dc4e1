#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "gcloud_config.h"
#include "tputrain/config/settings.h"

namespace fs = std::filesystem;
using tputrain::config::ResolveSettings;
using tputrain::config::SettingsSources;

namespace {

// A scratch directory holding a gcloud configuration and a tputrain.yaml.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("tputrain-config-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(reinterpret_cast<uintptr_t>(this)));
  Scratch() {
    fs::create_directories(root / "gcloud" / "configurations");
    std::ofstream(root / "gcloud" / "active_config") << "work\n";
    std::ofstream(root / "gcloud" / "configurations" / "config_work")
        << "[core]\naccount = a@example.com\nproject = gcloud-project\n\n[compute]\nzone = us-east5-b\n";
  }
  ~Scratch() { fs::remove_all(root); }
  void WriteYaml(const std::string& text) const { std::ofstream(root / "tputrain.yaml") << text; }
  SettingsSources Sources() const {
    SettingsSources sources;
    sources.env = tputrain::core::Env({{"CLOUDSDK_CONFIG", (root / "gcloud").string()}});
    sources.working_dir = root.string();
    return sources;
  }
};

}  // namespace

TEST_CASE("gcloud's active configuration is the last resort") {
  Scratch scratch;
  auto settings = ResolveSettings(scratch.Sources());
  REQUIRE(settings);
  CHECK(settings->Get("project") == "gcloud-project");
  CHECK(settings->Lookup("project").source == "gcloud config 'work' (core/project)");
  CHECK(settings->Get("location") == "us-east5-b");
}

TEST_CASE("tputrain.yaml beats gcloud, the environment beats tputrain.yaml, flags beat everything") {
  Scratch scratch;
  scratch.WriteYaml("project: yaml-project\nlocation: us-central1\n");
  auto sources = scratch.Sources();
  auto from_yaml = ResolveSettings(sources);
  REQUIRE(from_yaml);
  CHECK(from_yaml->Get("project") == "yaml-project");
  CHECK_THAT(from_yaml->Lookup("project").source, Catch::StartsWith("tputrain.yaml"));

  sources.env.Set("CLOUDSDK_CORE_PROJECT", "env-project");
  sources.env.Set("CLOUDSDK_COMPUTE_REGION", "europe-west4");
  auto from_env = ResolveSettings(sources);
  REQUIRE(from_env);
  CHECK(from_env->Get("project") == "env-project");
  CHECK(from_env->Lookup("project").source == "env CLOUDSDK_CORE_PROJECT");
  CHECK(from_env->Get("location") == "europe-west4");

  sources.env.Set("TPUTRAIN_PROJECT", "tputrain-env");
  auto own_env = ResolveSettings(sources);
  REQUIRE(own_env);
  CHECK(own_env->Get("project") == "tputrain-env");

  sources.flags["project"] = "flag-project";
  auto from_flag = ResolveSettings(sources);
  REQUIRE(from_flag);
  CHECK(from_flag->Get("project") == "flag-project");
  CHECK(from_flag->Lookup("project").source == "flag --project");
}

TEST_CASE("CLOUDSDK_ACTIVE_CONFIG_NAME picks another gcloud configuration") {
  Scratch scratch;
  std::ofstream(scratch.root / "gcloud" / "configurations" / "config_other") << "[core]\nproject = other\n";
  auto sources = scratch.Sources();
  sources.env.Set("CLOUDSDK_ACTIVE_CONFIG_NAME", "other");
  auto settings = ResolveSettings(sources);
  REQUIRE(settings);
  CHECK(settings->Get("project") == "other");
  CHECK_FALSE(settings->Get("location").has_value());
}

TEST_CASE("a bad tputrain.yaml is a usage error naming the file and the key") {
  Scratch scratch;
  scratch.WriteYaml("projekt: typo\n");
  auto unknown = ResolveSettings(scratch.Sources());
  REQUIRE_FALSE(unknown);
  CHECK(tputrain::core::IsUsageError(unknown.error()));
  CHECK_THAT(unknown.error().message, Catch::Contains("tputrain.yaml") && Catch::Contains("projekt"));
  scratch.WriteYaml("project: [unclosed\n");
  auto malformed = ResolveSettings(scratch.Sources());
  REQUIRE_FALSE(malformed);
  CHECK_THAT(malformed.error().message, Catch::Contains("not valid YAML"));
}

TEST_CASE("a missing required setting says every way to set it") {
  Scratch scratch;
  auto sources = scratch.Sources();
  sources.env = tputrain::core::Env({{"CLOUDSDK_CONFIG", (scratch.root / "nothing").string()}});
  auto settings = ResolveSettings(sources);
  REQUIRE(settings);
  auto project = settings->Require("project");
  REQUIRE_FALSE(project);
  CHECK_THAT(project.error().message, Catch::Contains("--project") && Catch::Contains("CLOUDSDK_CORE_PROJECT"));
}

TEST_CASE("gcloud's INI dialect: sections, both separators, comments") {
  auto values = tputrain::config::ParseIni("; comment\n[core]\nproject=p\n# other\n[compute]\nregion : r\n");
  CHECK(values["core/project"] == "p");
  CHECK(values["compute/region"] == "r");
  CHECK(values.size() == 2);
}
