#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/cloudbuild/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::cloudbuild {

// Cloud Build cloudbuild/v1 builds, at projects/P/locations/L as gcloud builds submit calls them.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildCreate(const std::string& project, const std::string& location, const DockerBuildSpec& spec) const;
  // Answers the build as the create operation's metadata describes it (its id, its log bucket).
  core::Result<Build> Create(const std::string& project, const std::string& location, const DockerBuildSpec& spec);
  http::Request BuildCancel(const BuildRef& ref) const;
  core::Result<Build> Get(const BuildRef& ref);
  core::Result<Build> Cancel(const BuildRef& ref);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

}  // namespace tputrain::gcp::cloudbuild
