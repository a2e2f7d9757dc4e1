#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/artifactregistry/docker_image.h"
#include "tputrain/gcp/cloudbuild/types.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {

// `tputrain image build`: what `gcloud builds submit --tag IMAGE DIR` does.
struct ImageBuildRequest {
  std::string project;
  std::filesystem::path context_dir;
  gcp::artifactregistry::DockerImageRef image;
  std::string timeout;                  // the build's own timeout ("3600s"); empty: Cloud Build's default
  std::uint64_t max_context_bytes = 0;  // 0: no limit
  std::string max_context_flag = "--max-context-size";
};

struct ImageBuildResult {
  std::string build_id;
  std::string build_name;
  gcp::cloudbuild::BuildStatus status = gcp::cloudbuild::BuildStatus::kUnknown;
  std::string image;   // the tag pushed
  std::string digest;  // sha256:..., once pushed
  std::string log_url;
  std::string source;  // gs://BUCKET/source/....tgz
  std::size_t files = 0;
  std::uint64_t context_bytes = 0;
  std::uint64_t archive_bytes = 0;
  std::vector<Outcome> outcomes;  // the source bucket, the build
};

// `image build --format json` of run `run_id`: the build, the image and, once it has a digest,
// image_by_digest (IMAGE@sha256:...), the one line a script wants.
nlohmann::json ToJson(const std::string& run_id, const ImageBuildResult& result);

// The project's Cloud Build source bucket, as gcloud names it: PROJECT_cloudbuild, with ':' and
// '.' of a domain-scoped project replaced by '_' and "google" spelled "elgoog".
std::string SourceBucketOf(const std::string& project);

// The context as it will be uploaded: collected (a Dockerfile, within the size limit) and packed,
// before any call, so that a bad context is a usage error that leaves nothing behind.
struct PackedContext {
  std::string tarball;
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  std::string rules_source;
};
core::Result<PackedContext> PackContext(const ImageBuildRequest& request);

// Checks that the image's repository exists, makes sure the source bucket exists and belongs to
// the project, uploads the tarball, creates the build and, unless
// env.async, follows it to the end: `on_log` receives the build log as it grows, and the result
// carries the pushed image's digest. A build that ends in anything but SUCCESS is an error
// naming its status and failure; an interrupted wait cancels the build (as gcloud does on
// Ctrl-C). The build and its source tarball are ledgered as `build`, so cleanup deletes the
// tarball (and cancels a build still running); `LastBuiltImage` reads the image back.
core::Result<ImageBuildResult> BuildImage(ProvisionEnv& env, const ImageBuildRequest& request,
                                          const PackedContext& context,
                                          const std::function<void(std::string_view)>& on_log);

// Cancels the build if it still runs and deletes its source tarball: cleanup of a `build` entry.
core::Result<Outcome> DeleteBuild(ProvisionEnv& env, const state::LedgerEntry& entry);

// The image (IMAGE@sha256:...) the run's last successful build pushed, or "" when none did.
std::string LastBuiltImage(const state::Ledger& ledger);
// `image` by its digest: its name without the tag (a ':' after the last '/': a registry's port is
// no tag), then "@" and the digest.
std::string ImageByDigest(const std::string& image, const std::string& digest);

}  // namespace tputrain::workflow
