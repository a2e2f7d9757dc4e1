#include <catch2/catch.hpp>

#include "tputrain/workflow/image_build.h"

namespace tputrain::workflow {
namespace {

TEST_CASE("an image by its digest drops the tag, never a registry's port", "[unit]") {
  const std::string digest = "sha256:0123abcd";
  CHECK(ImageByDigest("us-docker.pkg.dev/p/r/maxtext:v1", digest) == "us-docker.pkg.dev/p/r/maxtext@" + digest);
  CHECK(ImageByDigest("us-docker.pkg.dev/p/r/maxtext", digest) == "us-docker.pkg.dev/p/r/maxtext@" + digest);
  CHECK(ImageByDigest("localhost:5000/maxtext", digest) == "localhost:5000/maxtext@" + digest);
  CHECK(ImageByDigest("localhost:5000/maxtext:latest", digest) == "localhost:5000/maxtext@" + digest);
  CHECK(ImageByDigest("maxtext:v1", digest) == "maxtext@" + digest);
}

}  // namespace
}  // namespace tputrain::workflow
