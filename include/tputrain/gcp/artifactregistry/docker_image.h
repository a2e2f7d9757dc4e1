#pragma once

#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::gcp::artifactregistry {

// A docker image in Artifact Registry: LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE[:TAG],
// IMAGE possibly nested (a/b/c). The form `gcloud builds submit --tag` pushes to.
struct DockerImageRef {
  std::string location;  // us-east5, or a multi-region: us, europe, asia
  std::string project;
  std::string repository;
  std::string image;  // the path inside the repository
  std::string tag;    // empty: docker's "latest"

  // us-east5-docker.pkg.dev/P/R/IMAGE:TAG, the tag spelled out.
  std::string Uri() const;
  // us-east5-docker.pkg.dev/P/R/IMAGE, for naming the image by digest (URI@sha256:...).
  std::string UriWithoutTag() const;
};

// Parses `value` (given as `field`), refusing anything outside that form with one usage line:
// gcr.io or Docker Hub names, an upper-case path, a digest instead of a tag, a bad repository id.
core::Result<DockerImageRef> ParseDockerImage(std::string_view field, std::string_view value);

}  // namespace tputrain::gcp::artifactregistry
