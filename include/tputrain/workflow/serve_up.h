#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/serving/engine.h"
#include "tputrain/serving/saxml.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_env.h"
#include "tputrain/workflow/serve_saxml.h"
#include "tputrain/workflow/serve_vllm.h"

// `tputrain serve up` and `serve down`, one request each for every engine (JetStream on a
// LeaderWorkerSet, Saxml on a JobSet, vLLM on a Deployment or LeaderWorkerSet): the engine is a
// field, the engines' own options are refused for the others (one table, serve_engine_options.h),
// everything is checked before any call, and one outcome tells what happened.
//
// --dry-run means one thing for every engine: nothing is stored anywhere; the objects are rendered
// and shown (a Secret's values redacted); when a cluster is at hand (ClusterAtHand) the API
// server also validates each apply (dryRun=All, kubectl's --dry-run=server) and says what it would
// do to each; without one, they are only shown (kubectl's --dry-run=client).
namespace tputrain::workflow {

// serve up's flags as typed.
struct ServeUpRequest {
  std::string engine;  // jetstream, saxml or vllm; empty: the model's (a Saxml preset's is Saxml's, else JetStream)
  std::string model;
  std::string tpu_type;  // empty: the engine's choice for the model
  std::vector<std::string> sets;
  std::string timeout;  // empty: by model size
  bool wait = true;
  bool install_operators = false;
  bool create_nodepool = false;
  std::string nodepool;
  CapacityFlags capacity;
  std::string queue;
  bool force = false;
  bool disaggregated = false;  // JetStream
  std::string checkpoint;      // JetStream and Saxml
  std::string bucket;          // JetStream and Saxml: BUCKET; empty: ChooseBucket's
  std::string replicas;        // Saxml, from here on
  std::string model_path;
  std::string sax_model;
  bool expose = false;
  std::string hf_token_file;  // vLLM, from here on
  std::string hf_config;
  ServeUpAccess access;  // the cluster, the run, the operators' manifests, --dry-run
};

// What a serve up will do: the engine and its own request, every value checked.
struct ServeUpPlan {
  serving::EngineKind engine = serving::EngineKind::kJetStream;
  ServeUpAccess access;
  std::optional<JetStreamUpRequest> jetstream;
  std::optional<VllmUpRequest> vllm;
  std::optional<VllmPrepared> vllm_prepared;  // vLLM's slice and objects, worked out
  std::optional<SaxmlUpRequest> saxml;
};

// Checks the request before any call: the engine, the options it does not take, the slice, the
// pool, the capacity and the timeout, then the engine's own values (its model, checkpoint,
// replicas; vLLM's slice for the model). Reads --hf-token-file (its text held by the redactor at
// once) and, for the engines whose templates name them, the configuration's values with the
// bucket ChooseBucket finds (one line on stderr says which). Sends nothing.
core::Result<ServeUpPlan> PlanServeUp(Root& root, const ServeUpRequest& request);

// What serve up did (or, under --dry-run, would do), for every engine alike.
struct ServeUpOutcome : ServedOutcome {
  serving::EngineKind engine = serving::EngineKind::kJetStream;
  std::string model;  // what is served: JetStream's preset, what vllm serve loads, Saxml's model id
  std::string tpu_type;
  std::string template_name;
  std::string workload_kind;  // LeaderWorkerSet, Deployment or JobSet
  std::string workload;
  std::string service;
  int hosts = 0;    // vLLM: the slice's hosts (0: not said)
  std::string why;  // vLLM: how the slice was chosen; empty when --tpu-type chose it
  bool dry_run = false;
  bool validated = false;                      // dry run: the API server checked each apply
  std::vector<nlohmann::json> objects;         // dry run: what would be applied, as it may be shown
  std::optional<serving::SaxModel> sax;        // Saxml: the model published to the cell
  bool published = false;                      // Saxml: by this command (false: adopted)
  int64_t active_replicas = 0;                 // Saxml: as /listcell last said
  std::string ingress;                         // Saxml --expose: the LoadBalancer's address
  std::optional<http::Request> would_publish;  // Saxml dry run: the publish it would send
  std::string placement;                       // where it runs: "on v6e-16 (NS/WORKLOAD)"
  std::string ask;                             // the command that asks it
  std::string endpoint_note;                   // what goes after the endpoint: "generate (through the API server)"
};

// Runs the plan: the run's ledger opened first, the cluster connected, the engine's flow; under
// --dry-run with no cluster at hand, the objects rendered only (nothing opened or sent).
core::Result<ServeUpOutcome> ServeUp(Root& root, const ServeUpPlan& plan);
// serve up --format json: the engine, the model, its slice, template, workload and Service, the
// endpoint, whether it serves, what was applied, and each engine's own (vLLM's hosts and why,
// Saxml's model path, replicas and publish); under --dry-run the objects.
nlohmann::json ToJson(const ServeUpOutcome& up);

// serve down's flags as typed.
struct ServeDownRequest {
  std::string engine;  // as given to serve up; empty: the model's
  std::string model;
  bool disaggregated = false;  // JetStream
  std::string tpu_type;        // JetStream and Saxml: to render again for a run that did not record
  std::vector<std::string> sets;
  std::string bucket;
  std::string replicas;   // Saxml
  std::string sax_model;  // Saxml
  KubeAccessFlags access;
  LedgerFlags ledger;
  bool dry_run = false;
};

// What a serve down will delete, checked before the question and any call.
struct ServeDownPlan {
  serving::EngineKind engine = serving::EngineKind::kJetStream;
  ServeDownRequest request;
  std::string sax_model;  // Saxml: the id to unpublish
  int64_t replicas = 1;   // Saxml
  std::string tpu_type;   // Saxml: the request's, else the preset's
  std::string question;   // what to ask before deleting
};
core::Result<ServeDownPlan> PlanServeDown(const ServeDownRequest& request);

struct ServeDownOutcome {
  serving::EngineKind engine = serving::EngineKind::kJetStream;
  std::string model;  // Saxml: the id
  std::vector<k8s::DeleteResult> deleted;
  bool unpublished = false;  // Saxml: false when the cell did not have it, or sax-http was not there
  std::string unpublish_note;
  std::optional<http::Request> would_unpublish;  // Saxml dry run: the unpublish it would send
};
// Only what the run's ledger holds as its own is deleted (serve_flow::DeleteServed); node pools stay.
core::Result<ServeDownOutcome> ServeDown(Root& root, const ServeDownPlan& plan);
// serve down --format json: what was deleted (or found gone), a list; Saxml's, an object that also
// says whether the model was unpublished.
nlohmann::json ToJson(const ServeDownOutcome& down);

// `tputrain serve status`: each serving workload of the namespace, every engine's (JetStream's and
// vLLM's LeaderWorkerSets, Saxml's model-server JobSets, vLLM's Deployments), with its pods and
// where to ask it; a vLLM server is asked through its Service (AskVllmServer).
struct ServeStatusRequest {
  KubeAccessFlags access;  // the namespace: -n, else the context's
};
struct ServeStatusOutcome {
  std::string ns;
  std::vector<ServeStatusRow> rows;
};
core::Result<ServeStatusOutcome> ServeStatus(Root& root, const ServeStatusRequest& request);
// serve status --format json: one entry per workload, a vLLM server's state, models and gauges.
nlohmann::json ToJson(const ServeStatusOutcome& status);

}  // namespace tputrain::workflow
