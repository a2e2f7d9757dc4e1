#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/config/settings.h"
#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/runtime.h"
#include "tputrain/core/timeline.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/endpoints.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/retrying_transport.h"
#include "tputrain/http/transport.h"
#include "tputrain/http/websocket.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {

// What every chain of the composition root ends in, and the time it runs on: the network (libcurl) and the
// system's clock for the process (ProcessLeaves); a test's fake transport and fake clock for a
// command run in-process. Everything above the leaves (dry run, credentials, retries, logging,
// secret holding) is the same in both.
class Leaves {
 public:
  virtual ~Leaves() = default;
  virtual core::Clock& clock() = 0;
  // Sleeps that Ctrl-C (the root's cancel token) cuts short.
  virtual core::Sleeper& sleeper() = 0;
  // One that Ctrl-C does not cut short (a command that spent the first Ctrl-C on a question).
  virtual core::Sleeper& uninterrupted_sleeper() = 0;
  virtual std::unique_ptr<http::Transport> Transport(http::CurlOptions options) = 0;
  virtual std::unique_ptr<http::WebSocketConnector> WebSocket(http::WebSocketOptions options) = 0;
};

// The process's leaves: libcurl, the system clock, sleeps that `cancel` interrupts.
class ProcessLeaves final : public Leaves {
 public:
  explicit ProcessLeaves(const core::CancelToken* cancel) : sleeper_(cancel) {}
  core::Clock& clock() override { return clock_; }
  core::Sleeper& sleeper() override { return sleeper_; }
  core::Sleeper& uninterrupted_sleeper() override { return uninterrupted_; }
  std::unique_ptr<http::Transport> Transport(http::CurlOptions options) override;
  std::unique_ptr<http::WebSocketConnector> WebSocket(http::WebSocketOptions options) override;

 private:
  core::SystemClock clock_;
  core::RealSleeper sleeper_;
  core::RealSleeper uninterrupted_;
};

// What the composition root is built from: the parsed global flags that shape its chains, where it prints,
// and the settings (resolved once by the caller, on first use).
struct RootOptions {
  const core::Env& env;
  std::ostream& out;  // --dry-run prints each mutation here
  std::ostream& err;  // --verbose and --log-http lines, and what people must see as it happens
  std::istream& in;   // answers to Confirm's questions
  core::Redactor& redactor;
  core::Reporter& reporter;
  const core::CancelToken* cancel = nullptr;
  std::function<core::Result<config::Settings>()> settings;
  bool interactive = false;  // stdin and stderr are terminals and --quiet was not given: Confirm asks
  bool dry_run = false;
  bool verbose = false;
  bool log_http = false;
  bool refresh_prices = false;
  std::string access_token_file;
  std::string billing_api_key;  // the Cloud Billing Catalog's, else TPUTRAIN_BILLING_API_KEY
  // Where each request's phases and the root's own (ADC, kubeconfig, ledger) are timed
  // (TPUTRAIN_PHASES=1); null: nowhere.
  core::Timeline* timeline = nullptr;
};

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
//   client → [DryRun] → Credential → Retry → [Logging] → SecretHolding → leaf (Curl)
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
// The CLI builds it (cli::Context::stack()) after flags are parsed, over the leaves its
// cli::Factory gives; nothing here touches the network until a flow asks for a client.
class Root {
 public:
  Root(RootOptions options, Leaves& leaves);
  ~Root();
  Root(const Root&) = delete;
  Root& operator=(const Root&) = delete;

  core::Clock& clock() { return leaves_.clock(); }
  core::Sleeper& sleeper() { return leaves_.sleeper(); }
  core::Sleeper& uninterrupted_sleeper() { return leaves_.uninterrupted_sleeper(); }
  const core::CancelToken* cancel() const { return options_.cancel; }
  // The clock, sleeper, Ctrl-C token and reporter every workflow environment is built on.
  const core::Runtime& runtime() const { return runtime_; }
  const core::Env& env() const { return options_.env; }
  // project, location, cluster, bucket, ray_address, quota_project: flags > environment >
  // tputrain.yaml > gcloud config, each with where it came from.
  core::Result<config::Settings> Settings() const { return options_.settings(); }
  core::Redactor& redactor() { return options_.redactor; }
  // Where lines people must see as they happen go (ssh's steps, a tunnel's connection errors),
  // whatever --quiet says: stderr. Print through redactor().
  std::ostream& err() { return options_.err; }
  // Asks `question` on stderr and reads the answer (y, Y or yes) from stdin; false without asking
  // when no one is there to answer (no terminal, or --quiet).
  bool Confirm(const std::string& question);
  bool dry_run() const { return options_.dry_run; }

  // Google APIs. Credentials are resolved (Application Default Credentials order) on first
  // use; a missing or malformed credentials file fails with exit 4.
  core::Result<http::Transport*> Google();
  core::Result<gcp::auth::TokenSource*> GoogleTokens();
  const gcp::Endpoints& endpoints() const { return endpoints_; }
  // A WebSocket connector to Google's own relays (IAP TCP forwarding): [Logging] → leaf with the
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
  core::Result<PriceSource> Prices();

  // Plain downloads (release manifests): Retry → [Logging] → leaf, no credential.
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
  ProvisionEnv Provision(http::Transport* google);

  // The WebSocket connector beside a transport: direct (kube null) or to `kube`'s API server
  // with its CA and credential, each connect carrying the credential as it is then.
  std::unique_ptr<http::WebSocketConnector> WebSocketFor(const k8s::Connection* kube);

  // The run ledger under `state_dir` (empty: $XDG_STATE_HOME/tputrain), one store per directory.
  state::LedgerStore& Ledger(const std::string& state_dir = "");

  // The user's template directories searched before the built-in templates: $TPUTRAIN_TEMPLATE_DIR.
  std::vector<std::string> TemplateDirs() const;

 private:
  struct GoogleChain;
  std::unique_ptr<http::Transport> Chain(http::CurlOptions curl, http::Credential* credential,
                                         const http::RetryPolicy* retry, bool dry_run, http::Headers headers = {});
  std::unique_ptr<http::WebSocketConnector> WebSocket(const http::CurlOptions& tls, http::Credential* credential);

  RootOptions options_;
  Leaves& leaves_;
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

}  // namespace tputrain::workflow
