#pragma once

#include <map>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"

// `serve up --engine vllm`: vLLM's OpenAI server on GKE TPUs. One host holding the whole slice
// runs the `vllm` template (a Deployment); a slice no VM holds runs `vllm-multihost` (a
// LeaderWorkerSet whose leader starts Ray, then vLLM over every host).
namespace tputrain::workflow {

struct VllmPlanRequest {
  std::string model;     // a catalog preset (llama3-8b), a Hugging Face repo id (org/name) or gs://BUCKET/DIR
  std::string tpu_type;  // empty: the preset's planned slice
  std::vector<std::string> sets;
  std::map<std::string, std::string> configuration;
  std::vector<std::string> template_dirs;
};

struct VllmPlan {
  std::string model;  // what vllm serve loads
  std::string tpu_type;
  std::string template_name;  // vllm or vllm-multihost
  double parameters = 0;      // 0: not a catalog model
  int hosts = 1;
  int chips = 0;
  std::vector<std::string> sets;  // the template's values, then --set
  std::string hf_token_secret;    // the Secret the pods read HF_TOKEN from (HF_TOKEN_SECRET)
};

// Which template, on which slice, with which values; a usage error for a model that is neither
// a preset, a repo id nor a gs:// directory, a repo id without --tpu-type, or tensor x pipeline
// parallel that is not the slice's chips. No network.
core::Result<VllmPlan> PlanVllm(const VllmPlanRequest& request);

struct VllmObjects {
  std::vector<k8s::Object> objects;
  std::string workload_kind;  // Deployment or LeaderWorkerSet
  std::string workload;
  std::string service;
};
core::Result<VllmObjects> RenderVllm(const VllmPlan& plan, const VllmPlanRequest& request);

// The Secret the pods read HF_TOKEN from (key `token`), from the token file's text: one line of
// printable ASCII, a trailing newline dropped; a usage error naming `flag` otherwise (the token
// itself is never in it).
core::Result<k8s::Object> HfTokenSecret(const std::string& flag, const std::string& name, const std::string& text);
// The objects as they may be shown: a Secret's data and stringData values replaced by
// "<redacted>", its keys kept.
nlohmann::json Shown(const k8s::Object& object);

}  // namespace tputrain::workflow
