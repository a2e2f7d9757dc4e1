#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/cloudbuild/types.h"
#include "tputrain/gcp/operations/wait.h"
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

// How to wait for a build to end (operations::Wait): builds.get, not the create's operation,
// says how it goes (its status, its log bucket), as gcloud builds submit follows it. `client`
// must outlive the wait. Any end but SUCCESS is its failure (BuildFailure).
operations::Waiting<Build> BuildWaiting(Client& client, const BuildRef& ref);
// "build ID ended FAILURE: detail (log: URL)"; CANCELLED is kCancelled, TIMEOUT
// kDeadlineExceeded, the others kFailedPrecondition. Nullopt for a build that succeeded or runs.
std::optional<core::Error> BuildFailure(const Build& build);

}  // namespace tputrain::gcp::cloudbuild
