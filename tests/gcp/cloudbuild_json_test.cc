#include <catch2/catch.hpp>

#include "tputrain/gcp/cloudbuild/types.h"

namespace tputrain::gcp::cloudbuild {
namespace {

TEST_CASE("the docker build body is gcloud builds submit --tag's") {
  DockerBuildSpec spec{"us-east5-docker.pkg.dev/p/repo/img:v1", "p_cloudbuild", "source/1.5-abc.tgz", "17", ""};
  const auto body = DockerBuildToJson(spec);
  CHECK(body == nlohmann::json::parse(R"({
    "images": ["us-east5-docker.pkg.dev/p/repo/img:v1"],
    "source": {"storageSource": {"bucket": "p_cloudbuild", "object": "source/1.5-abc.tgz", "generation": "17"}},
    "steps": [{"name": "gcr.io/cloud-builders/docker",
               "args": ["build", "--network", "cloudbuild", "--no-cache", "-t",
                        "us-east5-docker.pkg.dev/p/repo/img:v1", "."]}]
  })"));
  spec.timeout = "3600s";
  CHECK(DockerBuildToJson(spec)["timeout"] == "3600s");
}

TEST_CASE("a build reads back with its status, failure, log object and pushed images") {
  auto build = BuildFromJson(nlohmann::json::parse(R"({
    "id": "b-1", "status": "FAILURE", "failureInfo": {"type": "USER_BUILD_STEP", "detail": "step 0 failed"},
    "logsBucket": "gs://123.cloudbuild-logs.googleusercontent.com",
    "results": {"images": [{"name": "us-docker.pkg.dev/p/r/i:latest", "digest": "sha256:ab"}]}
  })"));
  CHECK(build.status == BuildStatus::kFailure);
  CHECK(IsFinished(build.status));
  CHECK(build.failure_detail == "step 0 failed");
  REQUIRE(build.images.size() == 1);
  CHECK(build.images[0].digest == "sha256:ab");
  auto log = LogObjectOf(build);
  REQUIRE(log);
  CHECK(log->bucket == "123.cloudbuild-logs.googleusercontent.com");
  CHECK(log->object == "log-b-1.txt");

  build.logs_bucket = "gs://logs/team/builds";
  CHECK(LogObjectOf(build)->object == "team/builds/log-b-1.txt");
  build.logs_bucket = "";
  CHECK_FALSE(LogObjectOf(build));

  CHECK(StatusFromName("WORKING") == BuildStatus::kWorking);
  CHECK_FALSE(IsFinished(BuildStatus::kQueued));
  CHECK(StatusFromName("SOMETHING_NEW") == BuildStatus::kUnknown);
  CHECK(StatusName(BuildStatus::kCancelled) == "CANCELLED");
}

}  // namespace
}  // namespace tputrain::gcp::cloudbuild
