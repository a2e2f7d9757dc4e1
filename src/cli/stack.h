#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/cli/context.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/runtime.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/endpoints.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/retrying_transport.h"
#include "tputrain/http/transport.h"
#include "tputrain/http/websocket.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::cli {

// Which Kubernetes cluster a command talks to: a GKE cluster (found through the Container API,
// its token from Application Default Credentials) or a kubeconfig context.
struct KubeTarget {
  std::optional<gcp::container::ClusterRef> gke;
  std::string kubeconfig;
  std::string context;
  std::string ns;
  bool insecure = false;
};

// The Ray Jobs API of one Ray cluster, with what it needs alive: the transport stack (direct, or
// the Kubernetes cluster's when reached through its API server's service proxy) and the
// WebSocket connector the log follow uses, built through the same decorators.
struct RaySession {
  // What the client's address needs kept open (a TPU VM's IAP tunnel and its relay connector);
  // declared first, so it goes last.
  std::shared_ptr<void> keeps_alive;
  std::unique_ptr<k8s::Connection> kube;  // set when the head is reached through the service proxy
  std::unique_ptr<http::Transport> direct;
  std::unique_ptr<ray::JobsClient> client;
  std::unique_ptr<http::WebSocketConnector> websocket;
};

// The composition root: the one place that makes transports, credentials, clocks and stores.
// Every API goes through the same decorators, outermost first:
//
//   client → [DryRun] → Credential → Retry → [Logging] → SecretHolding → Curl
//
// DryRun (--dry-run) is outermost so that a mutation is printed, never sent, without needing a
// credential (Kubernetes server dry runs pass: the server persists nothing). The credential sits
// outside Retry, so a 401 re-reads the token from its source (ADC, a kubeconfig exec plugin, a
// GKE token) and resends through the same retry loop; WebSocket upgrades get it the same way, so
// a long log follow outlives the token it started with. Logging (--verbose, --log-http) is
// innermost but one, so every attempt is shown, redacted; under it, SecretHolding hands the
// Redactor every secret-named JSON field of each body (a TPU node's Ray token), so that no sink
// prints one the process has read. Retry policy per API:
// - Google: 500/502/503/504, connection errors and hinted 429s for idempotent calls; a create
//   POST only after 503 or a hinted 429 (the server did not act); an ambiguous create is
//   resolved by the workflow reading the resource back (adopt or fail), never by a blind resend;
//   a retried DELETE that meets 404 counts as deleted.
// - Kubernetes: the same, except 500 (server-side apply answers 500 for a manifest it cannot
//   type: not transient), fewer and shorter waits; watches reconnect on their own.
// - Ray: none in the transport: the Jobs client retries itself, because a resent submit must
//   first look for the job its unanswered attempt may have made.
// Built lazily by Context::stack() after flags are parsed; nothing here touches the network
// until a command asks for a client.
class Stack {
 public:
  explicit Stack(Context& context);
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  core::Clock& clock() { return clock_; }
  core::Sleeper& sleeper() { return sleeper_; }
  const core::CancelToken* cancel() const { return context_.cancel; }
  // The clock, sleeper, Ctrl-C token and reporter every workflow environment is built on.
  const core::Runtime& runtime() const { return runtime_; }

  // Google APIs. Credentials are resolved (Application Default Credentials order) on first
  // use; a missing or malformed credentials file fails with exit 4.
  core::Result<http::Transport*> Google();
  core::Result<gcp::auth::TokenSource*> GoogleTokens();
  const gcp::Endpoints& endpoints() const { return endpoints_; }
  // A WebSocket connector to Google's own relays (IAP TCP forwarding): [Logging] → Curl with the
  // Google credential on each upgrade, and that credential, for a relay that asks for a new one.
  struct GoogleWebSocket {
    std::unique_ptr<http::WebSocketConnector> connector;
    http::Credential* credential = nullptr;
  };
  core::Result<GoogleWebSocket> GoogleRelay();

  // Where TPU prices are read: the Cloud Billing Catalog API with the API key (--billing-api-key,
  // TPUTRAIN_BILLING_API_KEY) or else Google's credential, one retry only (a built-in table stands
  // in when it fails), and the cache file. No credential is no transport, and `unavailable` says
  // why; a malformed key is a usage error.
  core::Result<workflow::PriceSource> Prices();

  // Plain downloads (release manifests): Retry → [Logging] → Curl, no credential.
  http::Transport& Downloads();

  // A Kubernetes cluster, reached as the target says; `--cluster` needs the Google stack.
  core::Result<std::unique_ptr<k8s::Connection>> Kube(const KubeTarget& target);

  // The Ray dashboard at `options.address`, or a RayCluster's head through `connection`'s API
  // server (the cluster's credential on every request and upgrade).
  core::Result<std::unique_ptr<RaySession>> Ray(ray::ClientOptions options);
  core::Result<std::unique_ptr<RaySession>> Ray(ray::ClientOptions options, std::unique_ptr<k8s::Connection> kube);

  // What the provisioning and cleanup workflows run with: `google` (from Google(); null where no
  // Google call may be made: a --dry-run plan, a cleanup of Kubernetes-only runs), the API
  // endpoints, time, progress and cancellation. The caller sets the ledger, run and waits.
  workflow::ProvisionEnv Provision(http::Transport* google);

  // The WebSocket connector beside a transport: direct (kube null) or to `kube`'s API server
  // with its CA and credential, each connect carrying the credential as it is then.
  std::unique_ptr<http::WebSocketConnector> WebSocketFor(const k8s::Connection* kube);

  // The run ledger under `state_dir` (empty: $XDG_STATE_HOME/tputrain), one store per directory.
  state::LedgerStore& Ledger(const std::string& state_dir = "");

  // Where this install's built-in templates are ($TPUTRAIN_TEMPLATE_DIR, else beside the binary).
  std::vector<std::string> BuiltinTemplateDirs() const;

 private:
  struct GoogleChain;
  std::unique_ptr<http::Transport> Chain(http::CurlOptions curl, http::Credential* credential,
                                         const http::RetryPolicy* retry, bool dry_run, http::Headers headers = {});
  std::unique_ptr<http::WebSocketConnector> WebSocket(const http::CurlOptions& tls, http::Credential* credential);

  Context& context_;
  core::SystemClock clock_;
  core::RealSleeper sleeper_;
  core::Runtime runtime_;
  gcp::Endpoints endpoints_;
  std::mutex google_mutex_;
  std::unique_ptr<GoogleChain> google_;
  std::unique_ptr<http::Transport> no_google_;
  std::unique_ptr<http::Transport> downloads_;
  std::unique_ptr<http::Transport> billing_;
  std::map<std::string, std::unique_ptr<state::LedgerStore>> ledgers_;
};

// CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE, else REQUESTS_CA_BUNDLE, else "" (the system store).
std::string CaBundleFromEnv(const core::Env& env);

}  // namespace tputrain::cli
