#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/serving/engine.h"
#include "tputrain/serving/vllm_status.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/capacity.h"

// Talking to a served model through the API server's service proxy: no port-forward, no public
// IP. The engine (serving::Engine) owns the wire shapes; this times and streams.
namespace tputrain::workflow {

struct ServeEndpoint {
  http::Transport& transport;  // the cluster's: it adds the Kubernetes credential to each request
  std::string base_url;        // .../services/NAME:PORT/proxy/ (k8s::ServiceProxyUrl)
  core::Clock& clock;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

struct GenerateOutcome {
  std::string text;  // empty when the text went to `on_text`
  // Streamed pieces with text in them (JetStream sends one per token); 0 for a whole answer.
  std::size_t pieces = 0;
  std::optional<std::chrono::milliseconds> time_to_first_token;  // streamed only
  std::chrono::milliseconds total{0};
  // The decode rate: streamed, the tokens after the first per second after the first arrived
  // (the server's completion_tokens where it counts them, else the pieces); whole, the server's
  // completion_tokens per second of the whole answer (none where the server does not count).
  std::optional<double> tokens_per_second;
  // The model the request named: the user's, or the server's own where it lists one (vLLM).
  std::string model;
  std::optional<serving::TokenUsage> usage;  // the server's count, where it gives one
};

// Sends one generate request; where the engine needs a model name and none is given, first asks
// the server which model it serves. With `request.stream`, `on_text` receives each piece as it
// arrives; otherwise it receives the whole text once. Text given to `on_text` is not kept; with
// no `on_text` the outcome keeps it, up to 64 MiB (longer is an error, not memory without end). An answer that is not a
// success is the engine's one-line error (the server's words, its HTTP status).
core::Result<GenerateOutcome> Generate(const ServeEndpoint& endpoint, const serving::Engine& engine,
                                       const serving::GenerateRequest& request,
                                       const std::function<void(std::string_view)>& on_text);

// One health probe: true when the engine says it serves.
core::Result<bool> IsServing(const ServeEndpoint& endpoint, const serving::Engine& engine);

// JetStream's part of `serve up` (seed 002): a model served on a LeaderWorkerSet. The one
// `serve up` request (serve_up.h) makes it; a stack's serve step holds it.
struct JetStreamUpRequest {
  std::string model;  // a serving preset: llama3.1-405b, llama2-70b (with disaggregated)
  bool disaggregated = false;
  std::string tpu_type;    // empty: the planned slice
  std::string checkpoint;  // CHECKPOINT_PATH; empty: the template's default (checkpoint-converter's output)
  std::vector<std::string> sets;
  std::map<std::string, std::string> configuration;  // BUCKET, PROJECT_ID, ... (ConfigurationValues)
  std::vector<std::string> template_dirs;            // the user's, searched before the built-in templates
  std::string ns;
  std::optional<std::chrono::milliseconds> timeout;  // empty: by model size (ServeTimeout)
  bool wait = true;
  bool dry_run = false;            // the server validates the apply (dryRun=All); nothing is stored or awaited
  bool install_operators = false;  // install LeaderWorkerSet (its pinned release) when it is missing
  // Create the slice's node pools first (one per slice, at once), named NODEPOOL[-i].
  bool create_nodepool = false;
  std::string nodepool;  // empty: "jetstream-" + the TPU type
  // Which pools the TPU pods select (and --create-nodepool makes): GKE's Spot and flex-start
  // node labels; a flex-start pool grows when the pods wait on it.
  CapacityFlags capacity;
  std::string queue;  // --queue: the Kueue LocalQueue the workload waits in (empty: none)
  // --force: objects of the same names that exist and are not the run's are taken over (and
  // deleted by serve down); without it they refuse the apply.
  bool force = false;
};

// What every engine's serve up runs with on the cluster side.
struct ServeUpEnv : core::Runtime {
  RecordedApplyEnv& apply;
  // The LeaderWorkerSet release manifest, fetched only when it is to be installed.
  std::function<core::Result<std::vector<k8s::Object>>()> load_lws_manifest;
  // Creates node pools in the GKE cluster (ledgered); set when the cluster is a GKE one.
  std::function<core::Status(const std::vector<gcp::container::NodePoolSpec>&)> create_pools;
  http::Transport& transport;  // the cluster's, for the health check through the service proxy
  // JobSet's (Saxml's model servers), likewise.
  std::function<core::Result<std::vector<k8s::Object>>()> load_jobset_manifest;
};

// What every engine's `serve up` tells: where the model is reached, what was applied, and
// whether (and how soon) it served.
struct ServedOutcome {
  std::string ns;
  std::string endpoint;  // the service proxy's base URL (the engine's paths go after it)
  std::vector<k8s::ApplyResult> applied;
  bool serving = false;
  std::chrono::milliseconds waited{0};
};

// A serving template's objects: its workload (Deployment or LeaderWorkerSet) and its Service.
struct ServeObjects {
  std::vector<k8s::Object> objects;
  std::string workload_kind;
  std::string workload;
  std::string service;
};

// The built-in template that serves `model`, or a usage error naming the models that can be served.
core::Result<std::string> ServeTemplateFor(const std::string& model, bool disaggregated);
// How long a model takes to load, by its size: a 405B restore takes 10-20+ minutes.
std::chrono::milliseconds ServeTimeout(double parameters);

// The configuration's values under the templates' names (BUCKET, PROJECT_ID, ...), read only when
// a template must be rendered again.
using ConfigurationLoader = std::function<core::Result<std::map<std::string, std::string>>()>;

// What a vLLM server answered `serve status` through its Service: its GET /health (a closed port
// while it loads is "loading", not an error), then, once it serves, GET /v1/models and /metrics.
struct VllmServerStatus {
  serving::VllmState state = serving::VllmState::kFailing;
  std::string detail;               // why it does not serve, or why its models or metrics are missing
  std::vector<std::string> models;  // the base model first, then its LoRA adapters
  std::optional<serving::VllmMetrics> metrics;
};
// Asks the server behind `base_url` (its service proxy URL, ending in '/'); never fails: what
// could not be asked is the state's detail.
VllmServerStatus AskVllmServer(http::Transport& transport, const std::string& base_url);

// A serving workload as `serve status` (serve_up.h) tells it.
struct ServeStatusRow {
  std::string kind;  // "lws", "jobset" or "deployment" (vLLM): with the name, what `tputrain logs` takes
  std::string name;
  bool available = false;
  int pods_ready = 0;
  int pods = 0;
  std::string service;   // the Service in front (JetStream: whose selector picks the leader pods; Saxml: sax-http's)
  std::string endpoint;  // its service proxy URL
  std::string created;   // metadata.creationTimestamp
  serving::EngineKind engine = serving::EngineKind::kJetStream;
  std::optional<VllmServerStatus> server;  // vLLM's, when a Service is in front of it
};

// What a LeaderWorkerSet's pods tell of it: a line for a pod that cannot get better, or nothing.
std::optional<std::string> PodProblem(const nlohmann::json& pod);
// The last milestone of a JetStream server's log ("weights loaded", "server up"), or "".
std::string ServingMilestone(std::string_view log);

}  // namespace tputrain::workflow
