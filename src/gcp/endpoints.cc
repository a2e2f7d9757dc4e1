#include "tputrain/gcp/endpoints.h"

#include <array>

#include "tputrain/http/transport.h"

namespace tputrain::gcp {
namespace {

constexpr std::array<const char*, 10> kApis = {
    "CONTAINER",        "TPU",        "STORAGE", "IAM",         "CLOUDRESOURCEMANAGER", "SERVICEUSAGE",
    "ARTIFACTREGISTRY", "CLOUDBUILD", "COMPUTE", "CLOUDBILLING"};

void Override(const core::Env& env, const char* api, std::string& base) {
  auto value = env.Get(std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api);
  if (!value || value->empty()) return;
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
  Override(env, "CLOUDBUILD", endpoints.cloudbuild);
  Override(env, "COMPUTE", endpoints.compute);
  Override(env, "CLOUDBILLING", endpoints.cloudbilling);
  return endpoints;
}

core::Status CheckEndpointOverrides(const core::Env& env) {
  for (const char* api : kApis) {
    std::string name = std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api;
    auto value = env.Get(name);
    if (!value || value->empty()) continue;
    auto url = http::ParseUrl(*value);
    if (!url || (url->scheme != "http" && url->scheme != "https") || url->host.empty()) {
      return core::Fail(core::Error::Usage(name + ": expected an http(s)://HOST[:PORT]/ URL, got '" + *value + "'"));
    }
  }
  return {};
}

}  // namespace tputrain::gcp
