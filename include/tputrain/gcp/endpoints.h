#pragma once

#include <string>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::gcp {

// The base URL of each Google API tputrain calls. A client appends its own version path
// ("v1/...", "v2/..."), except storage and compute, whose bases already end in "storage/v1/"
// and "compute/v1/" because that is how gcloud's overrides are written. Every base ends in '/'.
struct Endpoints {
  std::string container = "https://container.googleapis.com/";
  std::string tpu = "https://tpu.googleapis.com/";
  std::string storage = "https://storage.googleapis.com/storage/v1/";
  std::string iam = "https://iam.googleapis.com/";
  std::string cloudresourcemanager = "https://cloudresourcemanager.googleapis.com/";
  std::string serviceusage = "https://serviceusage.googleapis.com/";
  std::string artifactregistry = "https://artifactregistry.googleapis.com/";
  std::string cloudbuild = "https://cloudbuild.googleapis.com/";
  std::string cloudbilling = "https://cloudbilling.googleapis.com/";
  // Like storage, compute's base carries its version: gcloud's override is written that way.
  std::string compute = "https://compute.googleapis.com/compute/v1/";

  // Google's hosts, each replaced by CLOUDSDK_API_ENDPOINT_OVERRIDES_<API> when set, exactly as
  // gcloud reads them, so one set of variables points gcloud and tputrain at the same emulator.
  // An override set to "" is ignored.
  static Endpoints FromEnv(const core::Env& env);
};

// Each override that is set is an http(s) URL with a host; otherwise one usage line naming the
// variable. Checked before the first Google call, so a typo is not reported as a failed request.
core::Status CheckEndpointOverrides(const core::Env& env);

}  // namespace tputrain::gcp
