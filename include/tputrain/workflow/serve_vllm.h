#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/workflow/serve.h"

// `serve up --engine vllm`: vLLM's OpenAI server on GKE TPUs. One host holding the whole slice
// runs the `vllm` template (a Deployment); a slice no VM holds runs `vllm-multihost` (a
// LeaderWorkerSet whose leader starts Ray, then vLLM over every host).
namespace tputrain::workflow {

struct VllmPlanRequest {
  std::string model;  // a model tputrain models lists (llama3-8b), a Hugging Face repo id (org/name) or gs://BUCKET/DIR
  std::string tpu_type;   // empty: the smallest slice that serves the model (see PlanVllm)
  std::string hf_config;  // the checkpoint's config.json, to size the slice for a model the table lacks
  std::vector<std::string> sets;
  std::map<std::string, std::string> configuration;
  std::vector<std::string> template_dirs;
};

struct VllmPlan {
  std::string model;  // what vllm serve loads
  std::string tpu_type;
  std::string template_name;  // vllm or vllm-multihost
  double parameters = 0;      // 0: not sized (--tpu-type given for a model tputrain does not know)
  int hosts = 1;
  int chips = 0;
  std::vector<std::string> sets;  // the template's values, then --set
  std::string hf_token_secret;    // the Secret the pods read HF_TOKEN from (HF_TOKEN_SECRET)
  std::string why;                // how the slice was chosen; empty when --tpu-type chose it
};

// Which template, on which slice, with which values. Without --tpu-type the slice is sized for
// the model's bf16 weights as `plan --mode serve --dtype bf16` sizes it: a model by name, a repo
// id the table knows (its tokenizer repo, or its name), or --hf-config; `why` says which and the
// arithmetic. A usage error for a model that is neither a name, a repo id nor a gs:// directory,
// one that cannot be sized without --tpu-type or --hf-config, or tensor x pipeline parallel that
// is not the slice's chips. No network.
core::Result<VllmPlan> PlanVllm(const VllmPlanRequest& request);
// The --model check alone: a known model with a Hugging Face repo, a repo id or a gs:// directory.
core::Status CheckVllmModel(const std::string& model);

using VllmObjects = ServeObjects;  // a Deployment or a LeaderWorkerSet
core::Result<VllmObjects> RenderVllm(const VllmPlan& plan, const VllmPlanRequest& request);

// The Secret the pods read HF_TOKEN from (key `token`), from the token file's text: one line of
// printable ASCII, a trailing newline dropped; a usage error naming `flag` otherwise (the token
// itself is never in it).
core::Result<k8s::Object> HfTokenSecret(const std::string& flag, const std::string& name, const std::string& text);
// The objects as they may be shown: a Secret's data and stringData values replaced by
// "<redacted>", its keys kept.
nlohmann::json Shown(const k8s::Object& object);

// What `serve up --engine vllm` applies, worked out before any call: the plan, the template's
// objects, and (with a token) the Secret first. A usage error for a bad model, slice or token.
struct VllmUpRequest {
  VllmPlanRequest plan;
  std::optional<std::string> hf_token;  // the token file's text; none: no Secret (public models)
  std::string ns;
  std::optional<std::chrono::milliseconds> timeout;  // empty: by model size (ServeTimeout)
  bool wait = true;
  bool install_operators = false;  // LeaderWorkerSet, for a multi-host slice
  bool create_nodepool = false;
  std::string nodepool;    // empty: "vllm-" + the TPU type
  CapacityFlags capacity;  // which pools the TPU pods select (and --create-nodepool makes)
  std::string queue;       // --queue: the Kueue LocalQueue the workload waits in (empty: none)
  bool force = false;      // take over objects of the same names the run did not make (JetStreamUpRequest's)
};
struct VllmPrepared {
  VllmPlan plan;
  VllmObjects rendered;
};
core::Result<VllmPrepared> PrepareVllm(const VllmUpRequest& request);

// The last milestone of a vLLM server's log ("Ray workers 2/4", "weights loaded", "server up"), or "".
std::string VllmMilestone(std::string_view log);

}  // namespace tputrain::workflow
