#include "tputrain/gcp/endpoints.h"

namespace tputrain::gcp {
namespace {

void Override(const core::Env& env, const char* api, std::string& base) {
  auto value = env.Get(std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api);
  if (!value) return;
  base = *value;
  // gcloud joins the relative path onto the override, so a missing '/' would glue segments.
  if (base.back() != '/') base += '/';
}

}  // namespace

Endpoints Endpoints::FromEnv(const core::Env& env) {
  Endpoints endpoints;
  Override(env, "CONTAINER", endpoints.container);
  Override(env, "TPU", endpoints.tpu);
  Override(env, "STORAGE", endpoints.storage);
  Override(env, "IAM", endpoints.iam);
  Override(env, "CLOUDRESOURCEMANAGER", endpoints.cloudresourcemanager);
  Override(env, "SERVICEUSAGE", endpoints.serviceusage);
  Override(env, "ARTIFACTREGISTRY", endpoints.artifactregistry);
  return endpoints;
}

}  // namespace tputrain::gcp
