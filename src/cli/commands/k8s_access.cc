#include "commands/k8s_access.h"

#include <fstream>

#include "tputrain/k8s/service_proxy.h"

namespace tputrain::cli {
namespace {

// The Google access token that GKE contexts (gke-gcloud-auth-plugin) need.
core::Result<std::string> GoogleToken(Context& context) {
  std::string file = context.global.access_token_file;
  if (file.empty()) file = context.env.GetOr("CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "");
  if (file.empty()) {
    return core::Fail(core::Error::NoCredentials(
        "this kubeconfig context authenticates with Google credentials (gke-gcloud-auth-plugin): "
        "pass --access-token-file FILE"));
  }
  std::ifstream in(file);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) {
    return core::Fail(core::Error::Usage("--access-token-file: cannot read a token from " + file));
  }
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

}  // namespace

void AddKubeAccessFlags(CLI::App& command, KubeAccessFlags& flags) {
  command.add_option("--kubeconfig", flags.kubeconfig, "Kubeconfig file (default: KUBECONFIG, else ~/.kube/config)");
  command.add_option("--context", flags.context, "Kubeconfig context (default: its current-context)");
  command.add_option("-n,--namespace", flags.ns, "Kubernetes namespace (default: the context's)");
  command.add_flag("--insecure-skip-tls-verify", flags.insecure,
                   "Accept a kubeconfig cluster that disables TLS verification");
}

core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(const KubeAccessFlags& flags, Context& context,
                                                              core::Clock& clock) {
  auto access = k8s::LoadClusterAccess({flags.kubeconfig, flags.context, flags.insecure}, context.env);
  if (!access) return core::Fail(access.error());
  k8s::Credentials::Deps deps{&context.env, &clock, [&context] { return GoogleToken(context); }};
  return k8s::Connect(*access, std::move(deps));
}

void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags) {
  command.add_option("--raycluster", flags.name,
                     "Reach this RayCluster's head (NAME-head-svc:8265) through the Kubernetes API server");
  AddKubeAccessFlags(command, flags.access);
}

core::Result<RayClusterRoute> ResolveRayClusterRoute(const RayClusterFlags& flags,
                                                     const ray::ConnectionFlags& ray_flags, Context& context) {
  if (!ray_flags.address.empty()) {
    return core::Fail(core::Error::Usage("--raycluster and --address are exclusive: pass one"));
  }
  core::SystemClock clock;
  auto connection = ConnectCluster(flags.access, context, clock);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  auto endpoint = k8s::RayHeadEndpoint(client, ns, flags.name);
  if (!endpoint) return core::Fail(endpoint.error());
  ray::ConnectionFlags with_address = ray_flags;
  with_address.address = endpoint->base_url;
  auto options = ray::ResolveClientOptions(with_address, context.env, std::nullopt);
  if (!options) return core::Fail(options.error());
  for (auto& header : endpoint->headers) options->headers.push_back(std::move(header));

  RayClusterRoute route;
  route.client = std::move(*options);
  const auto& tls = k8s::TlsFor((*connection)->access, *(*connection)->credentials);
  route.curl.ca_pem = tls.ca_pem;
  route.curl.client_cert_pem = tls.client_cert_pem;
  route.curl.client_key_pem = tls.client_key_pem;
  route.curl.insecure_skip_tls_verify = (*connection)->access.insecure_skip_tls_verify;
  route.websocket.ca_pem = tls.ca_pem;
  return route;
}

}  // namespace tputrain::cli
