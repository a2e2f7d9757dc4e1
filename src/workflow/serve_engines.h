#pragma once

#include <optional>
#include <string>
#include <vector>

#include "saxml_render.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_saxml.h"
#include "tputrain/workflow/serve_up.h"
#include "tputrain/workflow/serve_vllm.h"

// Each engine's part of the one `serve up` and `serve down` (serve_up.h): what it renders, how it
// applies and waits, what it deletes. Private to workflow: commands and stacks reach them only
// through ServeUp and ServeDown.
namespace tputrain::workflow {

// PlanServeUp with the templates' values from `configuration` (called only for the engines whose
// templates name them) and the user's template directories: what a stack's serve section is
// checked with at load, as serve up checks its flags.
core::Result<ServeUpPlan> PlanServeUpWith(const ServeUpRequest& request, const ConfigurationLoader& configuration,
                                          const std::vector<std::string>& template_dirs);
// The plan's engine flow in `env`, its outcome said alike for every engine.
core::Result<ServeUpOutcome> ServeUpIn(ServeUpEnv& env, const ServeUpPlan& plan);

// JetStream: the preset's template on its planned slice (or the one asked for), its TPU pods
// selecting the pools of the request's capacity.
struct JetStreamRendered {
  std::string template_name;
  std::string tpu_type;
  double parameters = 0;  // sizes the default timeout
  ServeObjects rendered;
};
core::Result<JetStreamRendered> RenderJetStream(const JetStreamUpRequest& request);

struct JetStreamUpOutcome : ServedOutcome {
  std::string template_name;
  std::string tpu_type;
  std::string leaderworkerset;
  std::string service;
};
// Renders the model's template, checks that LeaderWorkerSet is installed and that nodes of the
// slice exist (a warning when none do yet), applies it (ledgered), and unless told not to, waits
// until it serves: the LeaderWorkerSet Available and one health check through the service proxy
// answered. Progress comes from the pods and the leader's log milestones; a pod that cannot get
// better (CrashLoopBackOff, an image that cannot be pulled, OOMKilled) ends the wait at once,
// with its container's last log lines.
core::Result<JetStreamUpOutcome> JetStreamUp(ServeUpEnv& env, const JetStreamUpRequest& request);

// JetStream's down: the objects the run's `serve up` applied for the model, as its ledger records
// them (no template values needed), deleted and marked so; node pools stay. Only what the run's
// ledger holds as its own is ever deleted: a run whose ledger names none for the model (an older
// release's) renders the template again from the values given, and deletes only those of its
// objects the ledger holds (serve_flow::DeleteServed).
struct JetStreamDownRequest {
  std::string model;
  bool disaggregated = false;
  std::string tpu_type;
  std::vector<std::string> sets;
  ConfigurationLoader configuration;
  std::vector<std::string> template_dirs;
  std::string ns;
  bool dry_run = false;
};
core::Result<std::vector<k8s::DeleteResult>> JetStreamDown(RecordedDeleteEnv& env, const JetStreamDownRequest& request);

// vLLM: applies what PrepareVllm made (ledgered under the user's --model, the Secret first),
// after the LeaderWorkerSet operator (multi-host) and the slice's nodes are there, and unless told
// not to, waits until it serves: the workload Available and vLLM's /health answering 200 through
// the service proxy. Until then a closed port (the proxy's 502/503) is vLLM loading; progress
// comes from the pods and the server's log milestones; a pod that cannot get better ends the wait.
// `dry_run`: the server validates the applies; nothing is stored or awaited.
core::Result<ServedOutcome> VllmUp(ServeUpEnv& env, const VllmUpRequest& request, const VllmPrepared& prepared,
                                   bool dry_run);
// vLLM's down: what the run's ledger records `serve up` applied for the model (the Secret too),
// deleted; nothing is rendered again.
core::Result<std::vector<k8s::DeleteResult>> VllmDown(RecordedDeleteEnv& env, const std::string& model,
                                                      const std::string& ns, bool dry_run);

// Saxml: the saxml template for the request's slices, its model servers selecting the pools of
// the request's capacity.
core::Result<SaxmlObjects> RenderSaxmlUp(const SaxmlUpRequest& request);

// The endpoint is sax-http's; serving: active_replicas == replicas.
struct SaxmlUpOutcome : ServedOutcome {
  std::string tpu_type;
  std::string jobset;
  std::string service;
  serving::SaxModel model;
  bool published = false;       // published by this command (false: it already was, adopted)
  int64_t active_replicas = 0;  // as /listcell last said
  std::string ingress;          // --expose: the LoadBalancer's address
};
// Renders the saxml template, checks JobSet (or installs it) and the slice's nodes, applies
// (ledgered), waits for the admin server, every model-server pod and sax-http, publishes the
// model (ledgered; one already published with the same path is adopted) and waits until
// /listcell shows every replica active. A pod that cannot get better ends the wait at once with
// its last log lines; so does a timeout, with the model servers' last lines.
core::Result<SaxmlUpOutcome> SaxmlUp(ServeUpEnv& env, const SaxmlUpRequest& request);

// Whether the run's ledger holds the model as published by the run (live, not adopted).
core::Result<bool> PublishedByRun(RecordedDeleteEnv& env, const serving::SaxModel& model, const SaxHttpTarget& target);

// Saxml's down: only what the run's ledger holds (serve_flow::DeleteServed): the objects serve up
// applied for the model, found by its id (no BUCKET or other value needed; a run of a release
// that did not record the id renders the template again, and only those of its objects the ledger
// holds go). Then the model is unpublished first (while sax-http still runs) when the run
// published it, and the objects deleted; node pools stay. An unknown run, or one that recorded
// nothing for the model, unpublishes and deletes nothing.
struct SaxmlDownRequest {
  std::string model_id;
  std::string tpu_type;
  int64_t replicas = 1;
  std::vector<std::string> sets;
  ConfigurationLoader configuration;  // read only to render the template again
  std::vector<std::string> template_dirs;
  std::string ns;
  bool dry_run = false;
};
struct SaxmlDownOutcome {
  bool unpublished = false;  // false: the cell did not have it, or sax-http was not there
  std::string unpublish_note;
  std::vector<k8s::DeleteResult> deleted;
};
core::Result<SaxmlDownOutcome> SaxmlDown(RecordedDeleteEnv& env, http::Transport& transport,
                                         const SaxmlDownRequest& request);

}  // namespace tputrain::workflow
