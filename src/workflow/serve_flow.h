#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serve_pods.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/runtime.h"
#include "tputrain/render/render.h"
#include "tputrain/serving/engine.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/serve.h"

// The skeleton every engine's `serve up` runs: the operator its workload needs checked (or
// installed), the slice's nodes checked (or their pools created), the objects applied as the run
// ledger records them, then a wait that polls the engine's own look until it serves. What differs
// between engines is the description (serve_flow::Deployment) and the look. Private to workflow.
namespace tputrain::workflow::serve_flow {

// An operator a workload kind needs: present when discovery serves `api_version`/`kind`.
struct OperatorNeed {
  std::string name;  // as `tputrain operators install` names it: lws, jobset
  std::string api_version;
  std::string kind;
  // Its release manifest, fetched only when it is to be installed.
  std::function<core::Result<std::vector<k8s::Object>>()> load_manifest;
};
// LeaderWorkerSet, which JetStream's and vLLM's multi-host servers run on.
OperatorNeed LwsOperator(std::function<core::Result<std::vector<k8s::Object>>()> load_manifest);

// What one engine applies for one model.
struct Deployment {
  std::string subject;               // the progress lines' subject: "serve NAME"
  std::string template_name;         // said as it is applied
  std::string ns;                    // as asked; empty: the client's default
  std::vector<k8s::Object> objects;  // in the order they are applied (a Secret before the pods reading it)
  std::string serve_model;           // recorded with each object: what serve down --model finds
  std::vector<OperatorNeed> operators;
  serve_pods::SliceNodes nodes;
  std::string service;  // the Service in front, reached through the API server's proxy
  serving::EngineKind engine = serving::EngineKind::kJetStream;  // whose port the Service has
  std::string queue;  // --queue: the Kueue LocalQueue the workload waits in (empty: none)
  // Objects of these names that exist and are not the run's: refused (false), or taken over as
  // the run's own (serve up --force).
  bool take_over = false;
};

struct Env : core::Runtime {
  RecordedApplyEnv& apply;
  serve_pods::PoolCreator create_pools;
};

// The operators (a usage-level refusal naming `tputrain operators install` unless `install`), the
// slice's nodes, then the apply, ledgered; `outcome` says where it is reached and what was
// applied. True when the cluster was seen to have no node of the slice (a refused pod is then
// hopeless). `dry_run` installs, creates and stores nothing.
core::Result<bool> Apply(Env& env, const Deployment& deployment, bool install, bool dry_run, ServedOutcome& outcome);

// Polls `look` (true: serving) with serving's backoff until it serves, a failure that waiting
// will not cure (FailedPrecondition, or what `hopeless` adds), or `timeout`; how long it took.
struct Wait {
  std::chrono::milliseconds timeout;
  std::string timeout_note;  // what stays, and how to see or remove it
  std::function<bool(const core::Error&)> hopeless;
  // The pools the TPU pods select: with flex-start the wait says it waits for capacity, and a
  // timeout says the pools had none in that time.
  CapacityMode capacity = CapacityMode::kOnDemand;
};
core::Result<std::chrono::milliseconds> WaitServing(Env& env, const Wait& wait,
                                                    const std::function<core::Result<bool>()>& look);

// The TPU pods of `objects` select the pools of `mode` (GKE's node labels, PoolNodeLabels); a
// usage error naming --capacity when template `template_name` has no pod that selects TPU nodes.
core::Status SelectCapacity(std::vector<k8s::Object>& objects, CapacityMode mode, const std::string& template_name);

// The template rendered: its objects, the first of `workload_kinds` and the first Service (an
// internal error when it lacks either).
core::Result<ServeObjects> RenderWorkload(const render::RenderRequest& request,
                                          const std::vector<std::string>& workload_kinds);

// The first of `milestones` (a log line and what to say of it, the latest stage first) that `log`
// has; "loading" for a log with none of them, "" for no log.
using Milestones = std::initializer_list<std::pair<std::string_view, std::string_view>>;
std::string Milestone(std::string_view log, Milestones milestones);

// A progress line said once: repeated states are not said again.
struct Progress {
  core::Reporter& reporter;
  std::string subject;
  std::string last;
  void Say(const std::string& state) {
    if (state == last) return;
    reporter.Progress(subject, state);
    last = state;
  }
};

k8s::DeleteOptions DownOptions(const std::string& ns, bool dry_run);  // each deletion awaited, 5 min

// `serve down --model M`: only what is the run's. The run must have a ledger (a usage error, as
// `cleanup --run` gives, otherwise). What its ledger records `serve up` applied for M on this
// cluster (in `ns` when given), live and its own, is to be deleted. A run that recorded nothing
// for M: with `render`, the template's objects rendered again (a run of a release that did not
// record the model) of which only those the ledger holds as the run's own; none of those either
// fails (kNotFound) saying that nothing was deleted. What the run applied for M, all deleted
// already: nothing to delete, no failure. `said` tells which, for the reporter.
struct Doomed {
  std::vector<k8s::Object> objects;
  std::string said;
};
using Render = std::function<core::Result<std::vector<k8s::Object>>()>;
core::Result<Doomed> ServedToDelete(RecordedDeleteEnv& env, const std::string& model, const std::string& ns,
                                    const Render& render = {});
// Says what is deleted, then deletes it (DeleteRecorded).
core::Result<std::vector<k8s::DeleteResult>> DeleteDoomed(RecordedDeleteEnv& env, Doomed doomed,
                                                          const k8s::DeleteOptions& options);
// The two in turn.
core::Result<std::vector<k8s::DeleteResult>> DeleteServed(RecordedDeleteEnv& env, const std::string& model,
                                                          const k8s::DeleteOptions& options, const Render& render = {});

// One server workload (JetStream's LeaderWorkerSet, vLLM's Deployment or LeaderWorkerSet) and how
// to look at it.
struct Workload {
  std::string path;  // on the API server
  std::string what;  // as errors name it: leaderworkerset/NAME
  std::string ns;
  std::string pod_selector;  // its pods
  std::string leader_pod;    // whose log tells how far the load is; empty: the first pod
  std::string container;     // the server's
  std::string tpu_type;
  std::function<std::string(std::string_view log)> milestone;
  // A log line the server never gets past, and what to say of it; empty: none.
  std::string fatal_line;
  std::string fatal_hint;
  std::string loading_note;  // said while Available but not yet healthy; empty: nothing
};

// The server workload `name` of `kind` (LeaderWorkerSet or Deployment) in `ns`: its path, its
// pods (a Deployment's are labelled app=NAME by every template) and its leader (an LWS's NAME-0; a
// Deployment's: its first pod). The rest is the engine's to fill.
Workload WorkloadAt(const std::string& kind, const std::string& ns, const std::string& name);

// One look: the workload, its pods (a hopeless one, or the fatal line in the leader's log, ends
// the wait), the milestone, then once it is Available one health check through the proxy.
core::Result<bool> LookOnce(ServeUpEnv& env, const Workload& workload, const std::string& endpoint,
                            const serving::Engine& engine, bool no_nodes, Progress& progress);

// WaitServing over LookOnce at the outcome's endpoint, the progress said under the deployment's
// subject, which is then said to serve (and the outcome so, with how long it took).
core::Status WaitWorkload(ServeUpEnv& env, const Wait& wait, const Workload& workload, const Deployment& deployment,
                          bool no_nodes, ServedOutcome& outcome);

}  // namespace tputrain::workflow::serve_flow
