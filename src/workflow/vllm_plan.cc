// Sizing `serve up --engine vllm`: the slice, the template that fits it, and the values that
// make vLLM patient enough for the model (engine start-up, the startup probe).
#include <algorithm>
#include <cmath>

#include "serve_flow.h"

#include "template_values.h"
#include "tputrain/catalog/models.h"
#include "tputrain/catalog/sizing.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/base64.h"
#include "tputrain/k8s/names.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/models.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_vllm.h"

namespace tputrain::workflow {
namespace {

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

// A model known by name; nothing for org/name, gs:// or a name the table lacks.
std::optional<catalog::Model> NamedModel(const std::string& name) {
  if (IsModelSource(name)) return std::nullopt;
  auto model = catalog::FindModel(name);
  if (!model) return std::nullopt;
  return *model;
}

}  // namespace

core::Status CheckVllmModel(const std::string& model) {
  if (auto named = NamedModel(model)) {
    if (!named->hf_repo.empty()) return {};
    return core::Fail(core::Error::Usage("--model " + model +
                                         ": no Hugging Face checkpoint is known for it; give its repo id ORG/NAME"));
  }
  if (IsModelSource(model)) return {};
  std::string nearest;
  for (const auto& name : catalog::NearestModelNames(model)) nearest += (nearest.empty() ? "" : ", ") + name;
  return core::Fail(core::Error::Usage("--model: expected a model tputrain models lists (nearest: " + nearest +
                                       "), a Hugging Face repo id ORG/NAME or gs://BUCKET/DIR, got '" + model + "'"));
}

namespace {

// The model the slice is sized for, and how it was found; nothing when it cannot be.
struct Sized {
  catalog::Model model;
  std::string how;
};

core::Result<std::optional<Sized>> ModelToSize(const VllmPlanRequest& request,
                                               const std::optional<catalog::Model>& named) {
  if (!request.hf_config.empty()) {
    auto model = ChooseModel({.hf_config = request.hf_config});
    if (!model) return core::Fail(model.error());
    return std::optional<Sized>(Sized{*model, "sized from --hf-config " + request.hf_config});
  }
  if (named) return std::optional<Sized>(Sized{*named, "sized as " + named->name});
  if (request.model.rfind("gs://", 0) != 0) {
    if (auto match = catalog::FindModelByRepo(request.model)) {
      return std::optional<Sized>(
          Sized{match->model, request.model + " sized as " + match->model.name + " (" + match->how + ")"});
    }
  }
  return std::optional<Sized>();
}

}  // namespace

core::Result<VllmPlan> PlanVllm(const VllmPlanRequest& request) {
  if (auto valid = CheckVllmModel(request.model); !valid) return core::Fail(valid.error());
  VllmPlan plan;
  const auto named = NamedModel(request.model);
  plan.model = named ? named->hf_repo : request.model;
  auto sized = ModelToSize(request, named);
  if (!sized) return core::Fail(sized.error());
  std::string planned_type;
  if (*sized && request.tpu_type.empty()) {
    // vLLM serves the Hub's bf16 weights: the slice is sized for those, on the model's default generation.
    catalog::PlanRequest serve{.mode = catalog::WorkloadMode::kServe, .dtype = "bf16", .slices = 1};
    auto slice = catalog::PlanSlice((*sized)->model, serve);
    if (!slice) return core::Fail(slice.error());
    planned_type = slice->slice.accelerator_type;
    plan.why = (*sized)->how + ": " + slice->formula;
  }
  if (*sized) plan.parameters = (*sized)->model.parameters;
  if (request.tpu_type.empty() && planned_type.empty()) {
    return core::Fail(core::Error::Usage(
        "--tpu-type: needed for " + request.model +
        ", which tputrain models does not list; give --tpu-type, or --hf-config with the checkpoint's config.json "
        "to size it (tputrain plan --hf-config FILE --mode serve shows the arithmetic)"));
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
