#pragma once

// The flags of `tputrain serve up|down`, shared by every engine's commands (JetStream's in
// serve.cc, Saxml's in serve_saxml.cc, vLLM's in serve_vllm.cc): one command line, three engines.
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::cli {

struct UpFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::string engine;     // empty: the model's (a saxml-* preset is Saxml's)
  std::string model;
  bool disaggregated = false;
  std::string tpu_type;
  std::string checkpoint;
  std::string bucket;  // empty: ChooseServeBucket's
  std::vector<std::string> sets;
  std::string timeout;  // empty: by model size
  bool no_wait = false;
  bool install_operators = false;
  std::string lws_manifest;     // empty: the pinned release's URL
  std::string jobset_manifest;  // likewise
  bool create_nodepool = false;
  std::string nodepool;
  workflow::CapacityFlags capacity;  // the pools the TPU pods select (and --create-nodepool makes)
  std::string queue;                 // --queue: a Kueue LocalQueue
  bool force = false;                // take over objects of the same names the run did not make
  // Saxml only
  std::string replicas;    // empty: the preset's
  std::string model_path;  // empty: the preset's
  std::string sax_model;   // empty: the preset's id (/sax/test/spmd)
  bool expose = false;
  // vLLM only
  std::string hf_token_file;  // its text becomes the Secret HF_TOKEN is read from
  std::string hf_config;      // the checkpoint's config.json, to size the slice without --tpu-type
};

struct DownFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;
  std::string engine;
  std::string model;
  bool disaggregated = false;
  std::string tpu_type;
  std::string bucket;
  std::vector<std::string> sets;
  std::string replicas;   // Saxml
  std::string sax_model;  // Saxml
  bool yes = false;
};

// Whether the command is Saxml's: --engine saxml, or a Saxml model without --engine.
core::Result<bool> IsSaxml(const std::string& engine, const std::string& model);

// The flags every engine's serve up checks alike, before any call: --tpu-type, --nodepool,
// --create-nodepool (needs --cluster), and --timeout, returned parsed.
core::Result<std::optional<std::chrono::milliseconds>> CheckUpFlags(const UpFlags& flags);

// The flags only some engines take: one given to another engine is refused, naming the engines
// that take it, before any call.
core::Status CheckEngineTakes(serving::EngineKind engine, const UpFlags& flags);
core::Status CheckEngineTakes(serving::EngineKind engine, const DownFlags& flags);

// The serve-up flags every engine's request takes alike (JetStream's, Saxml's and vLLM's).
template <typename Request>
void SetCommonUp(const UpFlags& flags, Request& request) {
  request.wait = !flags.no_wait;
  request.install_operators = flags.install_operators;
  request.create_nodepool = flags.create_nodepool;
  request.nodepool = flags.nodepool;
  request.capacity = flags.capacity;
  request.queue = flags.queue;
  request.force = flags.force;
}

// serve up's cluster side for every engine: the run's ledger opened first (one that cannot record
// refuses the command before any call), the cluster connected, then `run` with the env.
core::Status WithServeUpEnv(const UpFlags& flags, Context& context, bool dry_run,
                            const std::function<core::Status(workflow::ServeUpEnv&)>& run);
// What was applied, for --format json.
nlohmann::json AppliedJson(const std::vector<k8s::ApplyResult>& applied, bool dry_run);

// Durations and rates in --format json, to the thousandth.
inline double Rounded(double value) { return std::round(value * 1000.0) / 1000.0; }
inline double Seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

// The engine serve up runs: --engine, else the model's (a saxml-* preset is Saxml's).
core::Result<serving::EngineKind> ServeEngineOf(const std::string& engine, const std::string& model);

core::Result<int> RunSaxmlUp(const UpFlags& flags, Context& context);
core::Result<int> RunVllmUp(const UpFlags& flags, Context& context);
// --engine, and the flags only vLLM takes.
void AddEngineFlags(CLI::App& up, UpFlags& flags);
// serve up for Saxml or vLLM (JetStream's is serve.cc's own).
core::Result<int> RunEngineUp(serving::EngineKind engine, const UpFlags& flags, Context& context);
core::Result<int> RunSaxmlDown(const DownFlags& flags, Context& context);
core::Result<int> RunVllmDown(const DownFlags& flags, Context& context);
// What serve down deleted (or found gone), as --format asks.
core::Result<int> PrintDeleted(Context& context, const std::vector<k8s::DeleteResult>& deleted);
// serve status; serve list, serve unpublish.
void AddServeStatusCommand(CLI::App& serve, Context& context);
void AddSaxmlServeCommands(CLI::App& serve, Context& context);

}  // namespace tputrain::cli
