// tputrain image build against the emulator's Cloud Build: bad input sends nothing and writes
// nothing; a failed build is exit 1 naming its failure; Ctrl-C cancels the build; cleanup cancels
// a build still running and deletes its source tarball.
#include <signal.h>

#include <algorithm>
#include <future>

#include <catch2/catch.hpp>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

constexpr char kTag[] = "us-east5-docker.pkg.dev/p/repo/trainer:v1";

fs::path MakeContext(const fs::path& dir) {
  const fs::path context = dir / "context";
  fs::create_directories(context);
  std::ofstream(context / "Dockerfile") << "FROM python:3.11-slim\n";
  std::ofstream(context / "train.py") << "print('train')\n";
  return context;
}

// The emulator's builds, by id.
nlohmann::json Builds(EmulatorEnv& env) { return env.State().value("builds", nlohmann::json::object()); }

std::vector<std::string> SourceObjects(EmulatorEnv& env, const std::string& prefix = "source/") {
  std::vector<std::string> names;
  const auto buckets = env.State().value("objects", nlohmann::json::object());
  const auto objects = buckets.value("p_cloudbuild", nlohmann::json::object());
  for (const auto& [name, object] : objects.items()) {
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

bool SourceBucketExists(EmulatorEnv& env) {
  return env.State().value("buckets", nlohmann::json::object()).contains("p_cloudbuild");
}

// The gs:// source a build's --format json names.
std::string SourceOf(const ProcessResult& built) {
  const auto json = nlohmann::json::parse(built.out, nullptr, false);
  return json.is_object() ? json.value("source", "") : "";
}

TEST_CASE("image build: a bad context or tag is one line, exit 2, with no request sent and nothing written") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const fs::path context = MakeContext(env.dir());
  const fs::path empty = env.dir() / "empty";
  fs::create_directories(empty);
  const fs::path big = env.dir() / "big";
  fs::create_directories(big);
  std::ofstream(big / "Dockerfile") << "FROM scratch\n";
  std::ofstream(big / "weights.bin") << std::string(64 * 1024, 'w');
  struct Case {
    std::vector<std::string> args;
    std::string starts;
  };
  const std::vector<Case> cases = {
      {{"image", "build", empty, "--tag", kTag}, "ERROR: DIR: '"},
      {{"image", "build", context, "--tag", "gcr.io/p/trainer:v1"}, "ERROR: --tag: 'gcr.io/p/trainer:v1'"},
      {{"image", "build", context, "--tag", "europe-west4-docker.pkg.dev/p/repo/trainer", "--location", "us-east5-b"},
       "ERROR: --tag: repository repo is in europe-west4"},
      {{"image", "build", big, "--tag", kTag, "--max-context-size", "16K"}, "ERROR: --max-context-size: context '"},
  };
  for (const auto& bad : cases) {
    auto result = env.Tputrain(bad.args);
    INFO(bad.args[2] << " " << bad.args[4] << "\n" << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err.rfind(bad.starts, 0) == 0);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
  CHECK(env.Requests().empty());
  CHECK_FALSE(fs::exists(env.state_dir()));

  auto planned = env.Tputrain({"image", "build", context, "--tag", kTag, "--dry-run", "--format", "json"});
  INFO(planned.err);
  REQUIRE(planned.exit_code == 0);
  const auto plan = nlohmann::json::parse(planned.out);
  REQUIRE(plan["requests"].size() == 3);  // the bucket, the upload (not its bytes), the build
  CHECK(plan["requests"][1]["body"].get<std::string>().rfind("<application/gzip: 2 files, ", 0) == 0);
  CHECK(plan["requests"][2]["body"]["images"] == nlohmann::json{kTag});
  CHECK(env.Requests().empty());
  CHECK_FALSE(fs::exists(env.state_dir()));
}

TEST_CASE("image build: a build that fails is exit 1 naming its failure, after its log") {
  // The push comes three quarters into the build: 6 s leaves the test seconds to delete the
  // repository first even on a loaded machine.
  EmulatorEnv env({}, "6s");
  REQUIRE(env.ready());
  const fs::path context = MakeContext(env.dir());
  REQUIRE(env.Tputrain({"registry", "create", "repo", "--location", "us-east5"}).exit_code == 0);
  // The repository goes while the build runs (someone else's cleanup): the push fails.
  auto building = std::async(std::launch::async, [&] {
    return env.Tputrain({"image", "build", context, "--tag", kTag});
  });
  REQUIRE(tputrain::testing::WaitFor([&] { return !Builds(env).empty(); }, std::chrono::seconds(20)));
  CHECK(env.Call("DELETE", "/v1/projects/p/locations/us-east5/repositories/repo") == 200);
  auto result = building.get();
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK(result.err.find("this build is emulated") != std::string::npos);  // the log came first
  CHECK(result.err.find("ended FAILURE: Unable to push " + std::string(kTag)) != std::string::npos);
}

TEST_CASE("image build: a source bucket of the default name in another project is not uploaded to") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const fs::path context = MakeContext(env.dir());
  REQUIRE(env.Tputrain({"registry", "create", "repo", "--location", "us-east5"}).exit_code == 0);
  auto squatted = env.Tputrain({"bucket", "create", "gs://p_cloudbuild", "--project", "someone-else", "--run", "x"});
  REQUIRE(squatted.exit_code == 0);
  auto result = env.Tputrain({"image", "build", context, "--tag", kTag});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.err.find("bucket p_cloudbuild exists but is not project p's") != std::string::npos);
  CHECK(SourceObjects(env).empty());
  CHECK(Builds(env).empty());
}

TEST_CASE("image build: a context with names that are not ASCII is packed as UTF-8 and builds") {
  // libarchive in the C locale could not translate "résumé.txt": the pack failed before any call.
  EmulatorEnv env;
  REQUIRE(env.ready());
  const fs::path context = env.dir() / "context";
  fs::create_directories(context / "données");
  std::ofstream(context / "Dockerfile") << "FROM python:3.11-slim\nCOPY résumé.txt données /app/\n";
  std::ofstream(context / "résumé.txt") << "cv\n";
  std::ofstream(context / "données" / "日本.csv") << "a,b\n";
  REQUIRE(env.Tputrain({"registry", "create", "repo", "--location", "us-east5"}).exit_code == 0);
  auto result = env.Tputrain({"image", "build", context, "--tag", kTag});
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.err.find("Context: 3 files") != std::string::npos);
  CHECK(result.out.rfind("us-east5-docker.pkg.dev/p/repo/trainer@sha256:", 0) == 0);
}

TEST_CASE("image build: Ctrl-C cancels the build; cleanup cancels an --async build and deletes the tarballs") {
  EmulatorEnv env({"--faults", "builds.create=stuck", "--stuck-for", "60s"}, "200ms");
  REQUIRE(env.ready());
  const fs::path context = MakeContext(env.dir());
  REQUIRE(env.Tputrain({"registry", "create", "repo", "--location", "us-east5", "--run", "r-img"}).exit_code == 0);

  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(),
                  "image",
                  "build",
                  context,
                  "--tag",
                  kTag,
                  "--run",
                  "r-img",
                  "--state-dir",
                  env.state_dir()};
  options.env = env.Environment();
  tputrain::testing::ScopedProcess waiting(options);
  REQUIRE(tputrain::testing::WaitFor(
      [&] {
        const nlohmann::json builds = Builds(env);
        for (const auto& [id, build] : builds.items()) {
          if (build.value("status", "") == "WORKING") return true;
        }
        return false;
      },
      std::chrono::seconds(20)));
  kill(waiting.pid(), SIGINT);
  REQUIRE(tputrain::testing::WaitFor([&] { return !waiting.running(); }, std::chrono::seconds(20)));
  INFO(waiting.ReadErr());
  CHECK(waiting.Stop() == 130);
  CHECK(waiting.ReadErr().find("cancelled") != std::string::npos);
  const nlohmann::json interrupted = Builds(env);
  for (const auto& [id, build] : interrupted.items()) CHECK(build.value("status", "") == "CANCELLED");

  auto started = env.Tputrain({"image", "build", context, "--tag", kTag, "--run", "r-img", "--async"});
  INFO(started.err);
  REQUIRE(started.exit_code == 0);
  CHECK(started.out.find("/builds/") != std::string::npos);  // the started build's name
  CHECK(SourceObjects(env).size() == 2);

  auto cleaned = env.Tputrain({"cleanup", "--run", "r-img", "--yes"});
  INFO(cleaned.err);
  CHECK(cleaned.exit_code == 0);
  const nlohmann::json cleaned_builds = Builds(env);
  CHECK(cleaned_builds.size() == 2);
  for (const auto& [id, build] : cleaned_builds.items()) CHECK(build.value("status", "") == "CANCELLED");
  CHECK(SourceObjects(env).empty());
  CHECK(env.State().value("repositories", nlohmann::json::object()).empty());
}

TEST_CASE("cleanup of the run that made PROJECT_cloudbuild deletes its tarballs, never the others' or the bucket") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const fs::path context = MakeContext(env.dir());
  REQUIRE(env.Tputrain({"registry", "create", "repo", "--location", "us-east5", "--run", "setup"}).exit_code == 0);
  auto build = [&](const std::string& run) {
    auto built = env.Tputrain({"image", "build", context, "--tag", kTag, "--run", run, "--format", "json"});
    INFO(built.err);
    REQUIRE(built.exit_code == 0);
    return SourceOf(built);
  };
  const std::string first = build("first");    // creates the bucket, labelled with its run
  const std::string second = build("second");  // finds it there
  // Someone else's object in the project's bucket (gcloud builds submit stages its sources here).
  REQUIRE(env.Call("POST", "/upload/storage/v1/b/p_cloudbuild/o?uploadType=media&name=source%2Fby-gcloud.tgz",
                   "not tputrain's") == 200);
  REQUIRE(SourceObjects(env).size() == 3);

  auto cleaned = env.Tputrain({"cleanup", "--run", "first", "--yes"});
  INFO(cleaned.err);
  CHECK(cleaned.exit_code == 0);
  CHECK(cleaned.err.find("kept: it holds 2 objects this run did not upload") != std::string::npos);
  CHECK(cleaned.out.find("kept: holds others' objects") != std::string::npos);
  const auto left = SourceObjects(env);
  CHECK(std::find(left.begin(), left.end(), first.substr(first.find("/source/") + 1)) == left.end());
  CHECK(std::find(left.begin(), left.end(), second.substr(second.find("/source/") + 1)) != left.end());
  CHECK(std::find(left.begin(), left.end(), "source/by-gcloud.tgz") != left.end());
  CHECK(SourceBucketExists(env));
  // Kept, and said so again by a later plan; the run's own tarball is not listed any more.
  auto planned = env.Tputrain({"cleanup", "--run", "first", "--dry-run"});
  CHECK(planned.out.find("kept (shared: it held objects this run did not upload") != std::string::npos);

  // The second run adopted the bucket: its cleanup deletes its own tarball only.
  CHECK(env.Tputrain({"cleanup", "--run", "second", "--yes"}).exit_code == 0);
  CHECK(SourceObjects(env) == std::vector<std::string>{"source/by-gcloud.tgz"});
  CHECK(SourceBucketExists(env));

  // Runners that died with their ledgers: the scan finds the bucket by the first run's label, and
  // --delete-leaked keeps it while it holds anything.
  fs::remove(fs::path(env.state_dir()) / "first.json");
  fs::remove(fs::path(env.state_dir()) / "second.json");
  auto leaked = env.Tputrain({"cleanup", "--scan", "--delete-leaked", "--yes"});
  INFO(leaked.err);
  CHECK(leaked.exit_code == 0);
  CHECK(leaked.err.find("kept: it holds 1 object this run did not upload") != std::string::npos);
  CHECK(SourceObjects(env) == std::vector<std::string>{"source/by-gcloud.tgz"});
  CHECK(SourceBucketExists(env));

  // Once nothing else is in it, the bucket the run made goes.
  REQUIRE(env.Call("DELETE", "/storage/v1/b/p_cloudbuild/o/source%2Fby-gcloud.tgz") == 204);
  CHECK(env.Tputrain({"cleanup", "--scan", "--delete-leaked", "--yes"}).exit_code == 0);
  CHECK_FALSE(SourceBucketExists(env));
}

}  // namespace
}  // namespace tputrain::workflow::testing
