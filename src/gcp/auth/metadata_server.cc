#include "tputrain/gcp/auth/metadata_server.h"

#include <nlohmann/json.hpp>

#include "auth/oauth.h"
#include "tputrain/core/json.h"

namespace tputrain::gcp::auth {
namespace {

constexpr const char* kDefaultHost = "metadata.google.internal";

std::string HostAndPort(const core::Env& env) {
  if (auto host = env.Get("GCE_METADATA_HOST")) return *host;
  if (auto root = env.Get("GCE_METADATA_ROOT")) return *root;
  return kDefaultHost;
}

core::Result<http::Response> MetadataGet(http::Transport& transport, const std::string& url) {
  http::Request request;
  request.url = url;
  request.headers = {{"Metadata-Flavor", "Google"}};
  request.timeout = std::chrono::milliseconds(10'000);
  auto response = transport.Send(request);
  std::string problem;
  if (!response) {
    problem = response.error().message;
  } else if (!response->ok()) {
    problem = "HTTP " + std::to_string(response->status);
  } else if (response->Header("metadata-flavor").value_or("") != "Google") {
    // Anything else answering on that address is not the metadata server.
    problem = "the reply lacks the header Metadata-Flavor: Google";
  }
  if (!problem.empty()) {
    return core::Fail(core::Error::NoCredentials(
        "no credentials: no --access-token-file, CLOUDSDK_AUTH_ACCESS_TOKEN_FILE, GOOGLE_APPLICATION_CREDENTIALS or "
        "gcloud application-default credentials, and the metadata server did not answer (" +
        url + ": " + problem + "); run 'gcloud auth application-default login' or set GOOGLE_APPLICATION_CREDENTIALS"));
  }
  return response;
}

}  // namespace

std::string MetadataRoot(const core::Env& env) { return "http://" + HostAndPort(env) + "/computeMetadata/v1/"; }

std::string MetadataHost(const core::Env& env) {
  std::string host = HostAndPort(env);
  if (!host.empty() && host.front() == '[') return host.substr(1, host.find(']') - 1);
  auto colon = host.rfind(':');
  return colon == std::string::npos ? host : host.substr(0, colon);
}

std::unique_ptr<TokenSource> MetadataServerSource(const core::Env& env, http::Transport& transport,
                                                  core::Clock& clock) {
  std::string root = MetadataRoot(env);
  auto fetch = [&transport, &clock, root]() -> core::Result<AccessToken> {
    auto response = MetadataGet(transport, root + "instance/service-accounts/default/token");
    if (!response) return core::Fail(response.error());
    auto body = core::ParseJson(response->body, "").value_or(nullptr);
    if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string()) {
      return core::Fail(
          core::Error::NoCredentials("the metadata server at " + root + " answered without an access_token"));
    }
    AccessToken token{body["access_token"].get<std::string>(), std::nullopt};
    if (auto it = body.find("expires_in"); it != body.end() && it->is_number()) {
      token.expiry = clock.WallNow() + std::chrono::seconds(it->get<long long>());
    }
    return token;
  };
  auto lookup = [&transport, root]() -> core::Result<std::string> {
    auto response = MetadataGet(transport, root + "instance/service-accounts/default/email");
    if (!response) return core::Fail(response.error());
    return response->body;
  };
  return std::make_unique<CachingTokenSource>(CredentialInfo{"metadata_server", root, ""}, fetch, clock, lookup);
}

}  // namespace tputrain::gcp::auth
