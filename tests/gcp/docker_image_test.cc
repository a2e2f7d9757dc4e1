#include "tputrain/gcp/artifactregistry/docker_image.h"

#include <catch2/catch.hpp>

namespace tputrain::gcp::artifactregistry {
namespace {

TEST_CASE("Artifact Registry docker images parse into location, project, repository, image and tag") {
  auto ref = ParseDockerImage("--tag", "us-east5-docker.pkg.dev/my-project/repo/ray-maxtext:latest");
  REQUIRE(ref);
  CHECK(ref->location == "us-east5");
  CHECK(ref->project == "my-project");
  CHECK(ref->repository == "repo");
  CHECK(ref->image == "ray-maxtext");
  CHECK(ref->tag == "latest");
  CHECK(ref->Uri() == "us-east5-docker.pkg.dev/my-project/repo/ray-maxtext:latest");

  auto nested = ParseDockerImage("--tag", "us-docker.pkg.dev/my-project/repo/team/trainer");
  REQUIRE(nested);
  CHECK(nested->location == "us");
  CHECK(nested->image == "team/trainer");
  CHECK(nested->tag.empty());
  CHECK(nested->Uri() == "us-docker.pkg.dev/my-project/repo/team/trainer:latest");
}

TEST_CASE("anything outside Artifact Registry's docker form is one usage line naming the flag") {
  struct Case {
    const char* value;
    const char* says;
  };
  const Case cases[] = {
      {"gcr.io/my-project/image:v1", "is not an Artifact Registry docker image"},
      {"ubuntu:22.04", "is not an Artifact Registry docker image"},
      {"nowhere-docker.pkg.dev/my-project/repo/image", "has no region"},
      {"us-east5-docker.pkg.dev/my-project/repo", "lacks a project, a repository or an image"},
      {"us-east5-docker.pkg.dev/my-project/repo/", "lacks a project, a repository or an image"},
      {"us-east5-docker.pkg.dev/My_Project/repo/image", "malformed project id"},
      {"us-east5-docker.pkg.dev/my-project/Repo/image", "malformed repository id 'Repo'"},
      {"us-east5-docker.pkg.dev/my-project/repo/Image", "malformed image name 'Image'"},
      {"us-east5-docker.pkg.dev/my-project/repo/../etc", "malformed image name"},
      {"us-east5-docker.pkg.dev/my-project/repo/image:bad/tag", "malformed image name"},
      {"us-east5-docker.pkg.dev/my-project/repo/image:-bad", "malformed tag '-bad'"},
      {"us-east5-docker.pkg.dev/my-project/repo/image@sha256:abc", "names a digest"},
  };
  for (const auto& c : cases) {
    INFO(c.value);
    auto ref = ParseDockerImage("--tag", c.value);
    REQUIRE_FALSE(ref);
    CHECK(ref.error().http_status == 0);
    CHECK(ref.error().message.rfind("--tag: '", 0) == 0);
    CHECK(ref.error().message.find(c.says) != std::string::npos);
    CHECK(ref.error().message.find('\n') == std::string::npos);
  }
}

}  // namespace
}  // namespace tputrain::gcp::artifactregistry
