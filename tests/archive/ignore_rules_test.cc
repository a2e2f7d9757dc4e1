#include "ignore_rules.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tputrain/archive/build_context.h"

namespace tputrain::archive {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char name[] = "/tmp/tputrain-ignore-test-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
  void Write(const std::string& relative, const std::string& text) const {
    fs::create_directories((path / relative).parent_path());
    std::ofstream(path / relative) << text;
  }
  fs::path path;
};

IgnoreRules Rules(const std::string& text) {
  auto rules = IgnoreRules::Parse(text, "/nonexistent");
  REQUIRE(rules);
  return *rules;
}

TEST_CASE("gcloudignore patterns match as gcloud matches them") {
  struct Case {
    const char* rules;
    const char* path;
    bool is_dir;
    bool ignored;
  };
  const Case cases[] = {
      {"*.pyc", "a.pyc", false, true},
      {"*.pyc", "deep/er/a.pyc", false, true},
      {"*.pyc", "a.py", false, false},
      {"build", "build", true, true},
      {"build", "src/build/out.o", false, true},  // a directory's children go with it
      {"build/", "build", false, false},          // directories only
      {"build/", "build", true, true},
      {"/build", "build/x", false, true},  // anchored at the root
      {"/build", "src/build/x", false, false},
      {"out/*.o", "out/a.o", false, true},
      {"out/*.o", "src/out/a.o", false, true},  // gcloud matches a path suffix
      {"*/bar", "foo/bar", false, true},
      {"*/bar", "a/foo/bar", false, false},  // a leading * is one top-level directory
      {"**/logs", "a/b/logs", true, true},
      {"a/**/z", "a/z", false, true},
      {"a/**/z", "a/b/c/z", false, true},
      {"a/**/z", "x/a/b/z", false, false},  // left of ** is anchored
      {"data/**", "data/x/y", false, true},
      {"*.log\n!keep.log", "keep.log", false, false},
      {"*.log\n!keep.log", "other.log", false, true},
      {"logs\n!logs/keep.log", "logs/keep.log", false, true},  // no re-including under an ignored dir
      {"# comment\n\n  \nsecret", "secret", false, true},
      {"\\#hash", "#hash", false, true},
      {"trailing   ", "trailing", false, true},
      {"", "anything", false, false},
  };
  for (const auto& c : cases) {
    INFO(c.rules << " vs " << c.path);
    CHECK(Rules(c.rules).IsIgnored(c.path, c.is_dir) == c.ignored);
  }
}

TEST_CASE("the rules for a directory follow gcloud: .gcloudignore, else the default with .gitignore, else none") {
  TempDir dir;
  dir.Write("Dockerfile", "FROM scratch\n");
  auto none = RulesForDirectory(dir.path);
  REQUIRE(none);
  CHECK(none->source == "none");
  CHECK(none->rules.empty());

  dir.Write(".gitignore", "*.ckpt\n");
  auto defaults = RulesForDirectory(dir.path);
  REQUIRE(defaults);
  CHECK(defaults->rules.IsIgnored(".git", true));
  CHECK(defaults->rules.IsIgnored(".gitignore", false));
  CHECK(defaults->rules.IsIgnored("model.ckpt", false));
  CHECK_FALSE(defaults->rules.IsIgnored("Dockerfile", false));

  dir.Write(".gcloudignore", "#!include:.gitignore\nnotes.md\n");
  auto own = RulesForDirectory(dir.path);
  REQUIRE(own);
  CHECK(own->source == ".gcloudignore");
  CHECK(own->rules.IsIgnored("model.ckpt", false));
  CHECK(own->rules.IsIgnored("notes.md", false));
  CHECK_FALSE(own->rules.IsIgnored(".git", true));  // only the default leaves .git out

  dir.Write(".gcloudignore", "#!include:../elsewhere\n");
  auto outside = RulesForDirectory(dir.path);
  REQUIRE_FALSE(outside);
  CHECK(outside.error().message.find("must name a file in the same directory") != std::string::npos);
}

TEST_CASE("a build context is the sorted files the rules keep, with a Dockerfile and within the limit") {
  TempDir dir;
  dir.Write("Dockerfile", "FROM scratch\n");
  dir.Write("src/train.py", "print(1)\n");
  dir.Write("checkpoints/big.bin", std::string(3 * 1024 * 1024, 'c'));
  dir.Write(".gcloudignore", ".gcloudignore\ncheckpoints/\n");

  auto context = CollectBuildContext(dir.path, {1024 * 1024, "--max-context-size"});
  REQUIRE(context);
  std::vector<std::string> paths;
  for (const auto& file : context->files) paths.push_back(file.archive_path);
  CHECK(paths == std::vector<std::string>{"Dockerfile", "src", "src/train.py"});
  CHECK(context->file_count == 2);
  CHECK(context->bytes == 22);
  CHECK(context->ignored == 2);

  dir.Write(".gcloudignore", "");
  auto too_big = CollectBuildContext(dir.path, {1024 * 1024, "--max-context-size"});
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message.rfind("--max-context-size: context '", 0) == 0);
  CHECK(too_big.error().message.find("holds more than 1.0 MiB") != std::string::npos);
  CHECK(too_big.error().message.find("checkpoints/big.bin (3.0 MiB)") != std::string::npos);

  fs::remove(dir.path / "Dockerfile");
  auto no_dockerfile = CollectBuildContext(dir.path, {});
  REQUIRE_FALSE(no_dockerfile);
  CHECK(no_dockerfile.error().message.rfind("DIR: '", 0) == 0);
  CHECK(no_dockerfile.error().message.find("has no Dockerfile at its root") != std::string::npos);

  dir.Write("Dockerfile", "FROM scratch\n");
  dir.Write(".gcloudignore", "Dockerfile\n");
  auto ignored = CollectBuildContext(dir.path, {});
  REQUIRE_FALSE(ignored);
  CHECK(ignored.error().message.find("has a Dockerfile, but .gcloudignore leaves it out") != std::string::npos);

  auto missing = CollectBuildContext(dir.path / "nope", {});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("is not a directory") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::archive
