#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/serving/saxml.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve.h"

// Seed 003: Saxml on GKE. An admin server (Deployment), model servers (a JobSet, one Job per
// slice, one pod per TPU VM) and sax-http (Deployment + Service); a model is then published to
// the cell through sax-http and loads on the model servers. tputrain reaches sax-http through
// the API server's service proxy: no LoadBalancer needed.
namespace tputrain::workflow {

// A model `serve up --engine saxml` knows: what it publishes and the slices it needs.
struct SaxmlPreset {
  std::string name;  // --model
  serving::SaxModel model;
  std::string tpu_type;  // one slice per replica
  double parameters = 0;
};
// The preset named `name`, or a usage error naming the known ones.
core::Result<SaxmlPreset> FindSaxmlPreset(const std::string& name);
bool IsSaxmlPreset(const std::string& name);
// A Saxml model id from `flag`: empty is the default preset's (/sax/test/spmd), a preset name
// its id; else it must be /sax/CELL/NAME.
core::Result<std::string> SaxModelIdOf(const std::string& flag, const std::string& value);

struct SaxmlUpRequest {
  serving::SaxModel model;  // id, model_path, checkpoint, replicas (one slice each)
  std::string tpu_type;
  double parameters = 0;  // sizes the default timeout
  bool expose = false;    // keep the seed's LoadBalancer Service and wait for its address
  std::vector<std::string> sets;
  std::map<std::string, std::string> configuration;
  std::vector<std::string> template_dirs;
  std::string ns;
  std::optional<std::chrono::milliseconds> timeout;
  bool wait = true;  // false: return once applied, before publishing
  bool dry_run = false;
  bool install_operators = false;  // install JobSet (its pinned release) when it is missing
  bool create_nodepool = false;    // a pool per replica first, named NODEPOOL-i
  std::string nodepool;            // empty: "saxml-" + the TPU type
  CapacityFlags capacity;          // which pools the model servers select (and --create-nodepool makes)
  std::string queue;               // --queue: the Kueue LocalQueue the workload waits in (empty: none)
  bool force = false;              // take over objects of the same names the run did not make (JetStreamUpRequest's)
};

// What serve up's Saxml flags (or a stack's serve section) choose, as typed.
struct SaxmlChoice {
  std::string model;       // --model: a preset, or the user's name for --model-path
  std::string model_path;  // --model-path: a servable of the user's own
  std::string sax_model;   // --sax-model: the id it is published as
  std::string checkpoint;  // --checkpoint: gs://... or None (random weights)
  std::string replicas;    // --replicas: 1..64, a slice each (empty: the preset's)
  std::string tpu_type;    // --tpu-type (empty: the preset's)
};
// The request for `choice` (the preset's values, overridden by the flags), every value checked;
// the caller adds the cluster's side (namespace, timeout, capacity, pools, configuration).
core::Result<SaxmlUpRequest> SaxmlRequestOf(const SaxmlChoice& choice);

// The model's state in the cell (/listcell); NotFound when it is not published.
core::Result<serving::SaxCellEntry> ListSaxModel(const ServeEndpoint& endpoint, const std::string& id);
// `serve list`: the same, with nothing (rather than NotFound) when sax-http says the cell does
// not have the model; a 404 (no sax-http behind the proxy) is still an error.
core::Result<std::optional<serving::SaxCellEntry>> FindSaxModel(const ServeEndpoint& endpoint, const std::string& id);
// Unpublishes the model; false when the cell did not have it.
core::Result<bool> UnpublishSaxModel(const ServeEndpoint& endpoint, const std::string& id);

// Marks a served-model entry of the run deleted, when the run's ledger holds it.
void RecordUnpublished(RecordedDeleteEnv& env, const serving::SaxModel& model, const SaxHttpTarget& target);

// `tputrain serve list` and `serve unpublish`: models in the cell, asked of sax-http through the
// API server's service proxy (the seed's `curl $LB_IP:8888/listcell` and `/unpublish`).
struct SaxCellRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;               // unpublish marks the run's ledger
  std::vector<std::string> models;  // ids or presets; none: the default preset's
  bool dry_run = false;             // unpublish: say what it would send, send nothing
};
// The ids `models` names (SaxModelIdOf, as --model), checked before any call.
core::Result<std::vector<std::string>> SaxModelIds(const std::vector<std::string>& models);

struct SaxModelState {
  std::string id;
  std::optional<serving::SaxCellEntry> entry;  // none: the cell does not have it
};
core::Result<std::vector<SaxModelState>> ListSaxModels(Root& root, const SaxCellRequest& request);
// serve list --format json: each model, whether the cell has it, and its path, checkpoint and replicas.
nlohmann::json ToJson(const std::vector<SaxModelState>& states);

struct SaxUnpublished {
  std::string id;
  bool unpublished = false;                 // false: the cell did not have it
  std::optional<http::Request> would_send;  // a dry run's request, not sent
};
// Each model unpublished in turn, the run's ledger marked for those it had published.
core::Result<std::vector<SaxUnpublished>> UnpublishSaxModels(Root& root, const SaxCellRequest& request);
// serve unpublish --format json: each model unpublished or not there; under --dry-run the request.
nlohmann::json ToJson(const std::vector<SaxUnpublished>& done);

// The sax-http endpoint of namespace `ns` (the template's Service name and port).
std::string SaxHttpEndpoint(const std::string& server, const std::string& ns);

}  // namespace tputrain::workflow
