#include "tputrain/workflow/root.h"

#include <istream>
#include <ostream>

#include "google_chain.h"
#include "tputrain/gcp/error_from_http.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/dry_run_transport.h"
#include "tputrain/http/header_transport.h"
#include "tputrain/http/logging_transport.h"
#include "tputrain/http/secret_holding_transport.h"
#include "tputrain/http/transport_chain.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/cluster_access.h"

namespace tputrain::workflow {
namespace {

constexpr http::RetryPolicy kKubernetesRetries{.max_attempts = 3,
                                               .initial_backoff = std::chrono::milliseconds(250),
                                               .max_backoff = std::chrono::milliseconds(2000),
                                               .retry_internal_error = false};

bool Logs(const RootOptions& options) { return options.verbose || options.log_http; }

// Stands where a workflow needs a transport but must not call Google: any call is a bug.
class NoGoogleCalls final : public http::Transport {
 public:
  core::Result<http::Response> Send(const http::Request& request) override {
    return core::Fail(
        core::Error::Internal("no Google API call was expected here: " + request.method + " " + request.url));
  }
};

}  // namespace

std::string CaBundleFromEnv(const core::Env& env) {
  if (auto file = env.Get("CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE")) return *file;
  return env.GetOr("REQUESTS_CA_BUNDLE", "");
}

std::unique_ptr<http::Transport> ProcessLeaves::Transport(http::CurlOptions options) {
  return std::make_unique<http::CurlTransport>(std::move(options));
}

std::unique_ptr<http::WebSocketConnector> ProcessLeaves::WebSocket(http::WebSocketOptions options) {
  return std::make_unique<http::CurlWebSocketConnector>(std::move(options));
}

Root::Root(RootOptions options, Leaves& leaves)
    : options_(std::move(options)),
      leaves_(leaves), runtime_{{leaves.clock(), leaves.sleeper(), options_.cancel}, options_.reporter},
      endpoints_(gcp::Endpoints::FromEnv(options_.env)) {}

Root::~Root() = default;

bool Root::Confirm(const std::string& question) {
  if (!options_.interactive) return false;
  options_.err << question << std::flush;
  std::string answer;
  std::getline(options_.in, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

std::unique_ptr<http::Transport> Root::Chain(http::CurlOptions curl, http::Credential* credential,
                                             const http::RetryPolicy* retry, bool dry_run, http::Headers headers) {
  // gcloud's extra CA file widens the trust of Google and plain https calls; a cluster that names
  // its own CA (kubeconfig, clusters.get) trusts only that CA, as kubectl does.
  if (curl.ca_bundle.empty() && curl.ca_pem.empty()) curl.ca_bundle = CaBundleFromEnv(options_.env);
  curl.timeline = options_.timeline;
  auto chain = std::make_unique<http::TransportChain>();
  chain->Push(leaves_.Transport(std::move(curl)));
  chain->Push<http::SecretHoldingTransport>(chain->top(), options_.redactor);
  if (Logs(options_))
    chain->Push<http::LoggingTransport>(chain->top(), options_.err, leaves_.clock(), options_.log_http,
                                        options_.redactor);
  if (retry != nullptr)
    chain->Push<http::RetryingTransport>(chain->top(), leaves_.sleeper(), *retry, gcp::RetryDelayOf);
  if (!headers.empty()) chain->Push<http::HeaderTransport>(chain->top(), std::move(headers));
  if (credential != nullptr)
    chain->Push<http::CredentialTransport>(chain->top(), *credential, &options_.redactor, options_.timeline);
  if (dry_run) chain->Push<http::DryRunTransport>(chain->top(), options_.out, options_.redactor);
  return chain;
}

std::unique_ptr<http::WebSocketConnector> Root::WebSocket(const http::CurlOptions& tls, http::Credential* credential) {
  http::WebSocketOptions options;
  options.ca_pem = tls.ca_pem;
  options.ca_bundle = tls.ca_bundle.empty() && tls.ca_pem.empty() ? CaBundleFromEnv(options_.env) : tls.ca_bundle;
  auto chain = std::make_unique<http::WebSocketChain>();
  chain->Push(leaves_.WebSocket(std::move(options)));
  if (Logs(options_)) {
    chain->Push<http::LoggingWebSocketConnector>(chain->top(), options_.err, leaves_.clock(), options_.log_http,
                                                 options_.redactor);
  }
  if (credential != nullptr) {
    chain->Push<http::CredentialWebSocketConnector>(chain->top(), *credential, &options_.redactor);
  }
  return chain;
}

http::Transport& Root::Downloads() {
  const http::RetryPolicy retries;
  if (!downloads_) downloads_ = Chain({}, nullptr, &retries, false);
  return *downloads_;
}

core::Result<std::unique_ptr<k8s::Connection>> Root::Kube(const KubeTarget& target) {
  // Google tokens are resolved only when a request needs one: a kubeconfig context with a
  // static token or a certificate never reads Application Default Credentials.
  k8s::Credentials::Deps deps{&options_.env, &leaves_.clock(),
                              [this]() -> core::Result<std::string> {
                                auto tokens = GoogleTokens();
                                if (!tokens) return core::Fail(tokens.error());
                                return (*tokens)->Token();
                              },
                              [this] {
                                if (auto tokens = GoogleTokens()) (*tokens)->Invalidate();
                              },
                              &options_.redactor};
  k8s::ClusterAccess access;
  if (target.gke) {
    auto google = Google();
    if (!google) return core::Fail(google.error());
    auto gke = GkeClusterAccess(**google, endpoints_.container, *target.gke);
    if (!gke) return core::Fail(gke.error());
    access = std::move(*gke);
    if (!target.ns.empty()) access.default_namespace = target.ns;
  } else {
    core::Timeline::Span span(options_.timeline, "kubeconfig");
    auto loaded = k8s::LoadClusterAccess({target.kubeconfig, target.context, target.insecure}, options_.env);
    if (!loaded) return core::Fail(loaded.error());
    access = std::move(*loaded);
  }
  auto make_transport = [this](const http::CurlOptions& tls, http::Credential& credential) {
    return Chain(tls, &credential, &kKubernetesRetries, options_.dry_run);
  };
  return k8s::Connect(access, std::move(deps), make_transport);
}

core::Result<std::unique_ptr<RaySession>> Root::Ray(ray::ClientOptions options) {
  auto session = std::make_unique<RaySession>();
  session->direct = Chain({}, nullptr, nullptr, options_.dry_run);
  session->client = std::make_unique<ray::JobsClient>(*session->direct, leaves_.sleeper(), std::move(options));
  session->websocket = WebSocketFor(nullptr);
  return session;
}

core::Result<std::unique_ptr<RaySession>> Root::Ray(ray::ClientOptions options, std::unique_ptr<k8s::Connection> kube) {
  auto session = std::make_unique<RaySession>();
  session->client = std::make_unique<ray::JobsClient>(*kube->transport, leaves_.sleeper(), std::move(options));
  session->websocket = WebSocketFor(kube.get());
  session->kube = std::move(kube);
  return session;
}

ProvisionEnv Root::Provision(http::Transport* google) {
  if (google == nullptr && !no_google_) no_google_ = std::make_unique<NoGoogleCalls>();
  const auto& e = endpoints_;
  return ProvisionEnv{runtime_,
                      google != nullptr ? *google : *no_google_,
                      {e.container, e.tpu, e.storage, e.iam, e.cloudresourcemanager, e.serviceusage, e.artifactregistry,
                       e.cloudbuild, e.compute}};
}

std::unique_ptr<http::WebSocketConnector> Root::WebSocketFor(const k8s::Connection* kube) {
  if (kube == nullptr) return WebSocket({}, nullptr);
  return WebSocket(kube->tls, kube->credentials.get());
}

state::LedgerStore& Root::Ledger(const std::string& state_dir) {
  std::string dir = state_dir.empty() ? state::LedgerStore::DefaultDir(options_.env) : state_dir;
  auto& store = ledgers_[dir];
  core::Timeline::Span span(options_.timeline, "ledger");
  if (!store) store = std::make_unique<state::LedgerStore>(dir, leaves_.clock());
  return *store;
}

std::vector<std::string> Root::TemplateDirs() const { return render::EnvironmentTemplateDirs(options_.env); }

}  // namespace tputrain::workflow
