// Sizing `serve up --engine vllm`: the slice, the template that fits it, and the values that
// make vLLM patient enough for the model (engine start-up, the startup probe).
#include <algorithm>
#include <cmath>

#include "serve_flow.h"

#include "tputrain/catalog/sizing.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/base64.h"
#include "tputrain/k8s/names.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_vllm.h"
#include "tputrain/workflow/template_values.h"

namespace tputrain::workflow {
namespace {

// The catalog's serving presets, as vLLM loads them from Hugging Face.
constexpr std::pair<std::string_view, std::string_view> kRepoIds[] = {
    {"llama3-8b", "meta-llama/Meta-Llama-3-8B-Instruct"},
    {"llama2-70b", "meta-llama/Llama-2-70b-chat-hf"},
    {"llama3.1-405b", "meta-llama/Llama-3.1-405B-Instruct"},
};

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

// org/name as the Hub spells it (each part 1-96 of [A-Za-z0-9._-]), or gs://BUCKET/DIR. Nothing
// else: the name goes into the leader's shell command line.
bool IsModelSource(const std::string& model) {
  std::string_view rest = model;
  const bool bucket = rest.rfind("gs://", 0) == 0;
  if (bucket) rest.remove_prefix(5);
  int parts = 0;
  while (true) {
    const auto slash = rest.find('/');
    const auto part = rest.substr(0, slash);
    if (part.empty() || part.size() > 96 || part == "." || part == ".." ||
        !std::all_of(part.begin(), part.end(), IsWordChar)) {
      return false;
    }
    ++parts;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return bucket ? parts >= 2 : parts == 2;
}

// The last --set of NAME, or "".
std::string SetValue(const std::vector<std::string>& sets, const std::string& name) {
  std::string value;
  for (const auto& set : sets) {
    if (set.rfind(name + "=", 0) == 0) value = set.substr(name.size() + 1);
  }
  return value;
}

int IntOr(const std::string& text, int fallback) {
  if (text.empty() || text.size() > 6 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return fallback;
  return std::stoi(text);
}

}  // namespace

core::Status CheckVllmModel(const std::string& model) {
  for (const auto& [preset, repo] : kRepoIds) {
    if (model == preset) return {};
  }
  if (IsModelSource(model)) return {};
  std::string presets;
  for (const auto& [preset, repo] : kRepoIds) presets += (presets.empty() ? "" : ", ") + std::string(preset);
  return core::Fail(core::Error::Usage("--model: expected a catalog model (" + presets +
                                       "), a Hugging Face repo id ORG/NAME or gs://BUCKET/DIR, got '" + model + "'"));
}

core::Result<VllmPlan> PlanVllm(const VllmPlanRequest& request) {
  VllmPlan plan;
  std::string planned_type;
  for (const auto& [preset, repo] : kRepoIds) {
    if (request.model != preset) continue;
    // vLLM serves the Hub's bf16 weights: the slice is sized for those.
    auto sized = catalog::PlanSlice({request.model, catalog::WorkloadMode::kServe, "", "bf16", 1});
    if (!sized) return core::Fail(sized.error());
    plan.model = repo;
    plan.parameters = sized->model.parameters;
    planned_type = sized->slice.accelerator_type;
  }
  if (plan.model.empty()) {
    if (auto valid = CheckVllmModel(request.model); !valid) return core::Fail(valid.error());
    if (request.tpu_type.empty()) {
      return core::Fail(core::Error::Usage("--tpu-type: needed for " + request.model + " (not a catalog model)"));
    }
    plan.model = request.model;
  }
  plan.tpu_type = request.tpu_type.empty() ? planned_type : request.tpu_type;
  auto slice = catalog::FindSliceType(plan.tpu_type);
  if (!slice) {
    core::Error error = slice.error();
    error.message = "--tpu-type: " + error.message;
    return core::Fail(error);
  }
  plan.chips = slice->chips;
  const bool one_host = static_cast<bool>(catalog::OneHostVariant(*slice));
  plan.template_name = one_host ? "vllm" : "vllm-multihost";
  plan.hosts = one_host ? 1 : slice->hosts;

  // Tensor x pipeline parallel must cover the slice's chips, or vLLM waits for devices forever.
  const int tensor = IntOr(SetValue(request.sets, "TENSOR_PARALLEL_SIZE"), plan.chips);
  const int pipeline = IntOr(SetValue(request.sets, "PIPELINE_PARALLEL_SIZE"), 1);
  if (one_host && pipeline != 1) {
    return core::Fail(core::Error::Usage("--set PIPELINE_PARALLEL_SIZE: only for a multi-host slice; " + plan.tpu_type +
                                         " is one host"));
  }
  if (tensor * pipeline != plan.chips) {
    return core::Fail(core::Error::Usage("--set TENSOR_PARALLEL_SIZE: times PIPELINE_PARALLEL_SIZE must be " +
                                         std::to_string(plan.chips) + " (the chips of " + plan.tpu_type + "), got " +
                                         std::to_string(tensor) + " x " + std::to_string(pipeline)));
  }
  // A first start downloads the weights and compiles for 10-30 min; vLLM's own 600 s would end it.
  const auto patience = std::chrono::duration_cast<std::chrono::seconds>(ServeTimeout(plan.parameters)).count();
  const long engine_ready = std::max<long>(1800, 2 * patience);
  plan.sets = {"TPU_TYPE=" + plan.tpu_type, "MODEL=" + plan.model,
               "ENGINE_READY_TIMEOUT_S=" + std::to_string(engine_ready),
               // The probe outlasts vLLM's own deadline, so vLLM says why it gave up first.
               "STARTUP_PROBE_FAILURES=" + std::to_string(engine_ready / 30 + 20)};
  if (plan.model.rfind("gs://", 0) == 0) plan.sets.push_back("LOAD_FORMAT=runai_streamer");
  plan.sets.insert(plan.sets.end(), request.sets.begin(), request.sets.end());
  plan.hf_token_secret = SetValue(request.sets, "HF_TOKEN_SECRET");
  if (plan.hf_token_secret.empty()) plan.hf_token_secret = "hf-token";  // the template's default
  if (auto valid = k8s::CheckObjectName("--set HF_TOKEN_SECRET", plan.hf_token_secret); !valid) {
    return core::Fail(valid.error());
  }
  return plan;
}

core::Result<VllmObjects> RenderVllm(const VllmPlan& plan, const VllmPlanRequest& request) {
  render::RenderRequest render_request;
  render_request.template_name = plan.template_name;
  render_request.template_dirs = request.template_dirs;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = plan.sets;
  return serve_flow::RenderWorkload(render_request, {"Deployment", "LeaderWorkerSet"});
}

core::Result<VllmPrepared> PrepareVllm(const VllmUpRequest& request) {
  auto capacity = ResolveCapacity(request.capacity);
  if (!capacity) return core::Fail(capacity.error());
  auto plan = PlanVllm(request.plan);
  if (!plan) return core::Fail(plan.error());
  auto rendered = RenderVllm(*plan, request.plan);
  if (!rendered) return core::Fail(rendered.error());
  if (auto selected = serve_flow::SelectCapacity(rendered->objects, capacity->mode, plan->template_name); !selected) {
    return core::Fail(selected.error());
  }
  if (request.hf_token) {
    auto secret = HfTokenSecret("--hf-token-file", plan->hf_token_secret, *request.hf_token);
    if (!secret) return core::Fail(secret.error());
    rendered->objects.insert(rendered->objects.begin(), std::move(*secret));  // before the pods that read it
  }
  return VllmPrepared{std::move(*plan), std::move(*rendered)};
}

core::Result<k8s::Object> HfTokenSecret(const std::string& flag, const std::string& name, const std::string& text) {
  std::string token = text;
  if (!token.empty() && token.back() == '\n') token.pop_back();
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.empty()) return core::Fail(core::Error::Usage(flag + ": the file is empty; expected a Hugging Face token"));
  if (token.size() > 1024 || !std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 127; })) {
    return core::Fail(core::Error::Usage(
        flag + ": expected one line holding a Hugging Face token (printable ASCII, no spaces, at most 1024 bytes)"));
  }
  k8s::Object secret;
  secret.api_version = "v1";
  secret.kind = "Secret";
  secret.name = name;
  secret.json = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "tputrain"}}}}},
                 {"type", "Opaque"},
                 {"data", {{"token", core::EncodeBase64(token)}}}};
  return secret;
}

nlohmann::json Shown(const k8s::Object& object) {
  nlohmann::json json = object.json;
  if (object.kind != "Secret") return json;
  for (const char* field : {"data", "stringData"}) {
    if (!json.contains(field) || !json[field].is_object()) continue;
    for (auto& [key, value] : json[field].items()) value = "<redacted>";
  }
  return json;
}

}  // namespace tputrain::workflow
