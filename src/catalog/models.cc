#include "tputrain/catalog/models.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "maxtext_models.h"
#include "tputrain/core/utf8.h"

namespace tputrain::catalog {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

Model FromTable(const MaxTextModel& entry) {
  Model model;
  model.name = std::string(entry.name);
  model.origin = ModelOrigin::kMaxText;
  model.origin_detail = fmt::format("MaxText {} configs/models/{}.yml", MaxTextVersion(), entry.config);
  model.shape = entry.shape;
  auto count = CountParameters(entry.shape);
  model.parameters = count.total;
  model.active_parameters = count.active;
  model.maxtext_model_name = model.name;
  model.hf_repo = std::string(entry.hf_repo);
  model.max_target_length = static_cast<int>(entry.shape.max_target_length);
  return model;
}

// The seeds' own choices for the MaxText models they ran, over the table's defaults.
void ApplySeedDefaults(Model& model) {
  if (model.name == "llama3-8b") {
    model.description = "Llama 3 8B pre-training with MaxText on a Ray cluster";
    model.max_target_length = 4096;  // seed 001's job: max_target_length=4096
    model.hf_repo = "meta-llama/Meta-Llama-3-8B-Instruct";
  } else if (model.name == "llama3.1-405b") {
    model.description = "Llama 3.1 405B served by JetStream + Pathways on LeaderWorkerSet";
    model.default_mode = WorkloadMode::kServe;
    model.default_dtype = "int8";  // the seed serves a quantized checkpoint (quantization=int8)
    model.hf_repo = "meta-llama/Llama-3.1-405B-Instruct";
  } else if (model.name == "llama2-70b") {
    model.description = "Llama 2 70B, disaggregated JetStream serving on two slices";
    model.default_mode = WorkloadMode::kServe;
    model.default_dtype = "int8";
    model.default_slices = 2;       // one prefill slice and one generate slice
    model.min_chips_per_slice = 8;  // inference_server=ExperimentalMaxtextDisaggregatedServer_8
    model.hf_repo = "meta-llama/Llama-2-70b-chat-hf";
  }
}

// tputrain's own presets: models no MaxText config describes.
std::vector<Model> OwnPresets() {
  std::vector<Model> presets;

  // Saxml's LmCloudSpmd175B (saxml/server/pax/lm/params/lm_cloud.py: 96 layers, model dims
  // 12288, 96 heads of 128): seed 003 sizes it as 175B.
  Model saxml;
  saxml.name = "saxml-175b-test";
  saxml.description = "Saxml LmCloudSpmd175B32Test (random weights) on v5e, one 4x8 slice per replica";
  saxml.origin = ModelOrigin::kPreset;
  saxml.origin_detail = "Saxml LmCloudSpmd175B";
  saxml.default_mode = WorkloadMode::kServe;
  saxml.parameters = 175e9;
  saxml.active_parameters = saxml.parameters;
  saxml.default_accelerator = "v5e";
  presets.push_back(saxml);

  // MaxText's default decoder shrunk by overrides, small enough to train on CPU in seconds on
  // any Ray cluster (hardware=cpu needs skip_jax_distributed_system, or it reads JOB_INDEX). It
  // exercises the whole submit path before TPUs are paid for.
  Model smoke;
  smoke.name = "maxtext-cpu-smoke";
  smoke.description = "Tiny MaxText model trained on CPU for a few steps: tries the submit path on any Ray cluster";
  smoke.origin = ModelOrigin::kPreset;
  smoke.origin_detail = "MaxText's default decoder with tiny overrides";
  ModelShape tiny;
  tiny.emb_dim = 64;
  tiny.num_decoder_layers = 2;
  tiny.num_query_heads = 2;
  tiny.num_kv_heads = 2;
  tiny.head_dim = 32;
  tiny.mlp_dim = 128;
  tiny.vocab_size = 256;
  smoke.shape = tiny;
  auto count = CountParameters(tiny);
  smoke.parameters = count.total;
  smoke.active_parameters = count.active;
  smoke.maxtext_model_name = "default";
  smoke.max_target_length = 128;
  smoke.extra_maxtext_args = {"steps=8",
                              "base_emb_dim=64",
                              "base_num_query_heads=2",
                              "base_num_kv_heads=2",
                              "base_mlp_dim=128",
                              "base_num_decoder_layers=2",
                              "head_dim=32",
                              "vocab_size=256",
                              "enable_checkpointing=false",
                              "hardware=cpu",
                              "skip_jax_distributed_system=true"};
  presets.push_back(smoke);
  return presets;
}

std::vector<Model> MakeModels() {
  std::vector<Model> models;
  for (const auto& entry : MaxTextModels()) {
    models.push_back(FromTable(entry));
    ApplySeedDefaults(models.back());
  }
  for (auto& preset : OwnPresets()) models.push_back(std::move(preset));
  return models;
}

// Edits from one name to the other, a swap of two neighbours counting as one ("qwen3-23b" is one
// from "qwen3-32b"): the optimal string alignment distance.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// "70b" → 7e10: digits with an optional fraction and a unit (k, m, b or t, either case), or a
// whole count of at least a million.
std::optional<double> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 24) return std::nullopt;
  double scale = 1;
  std::string_view digits = text;
  switch (std::tolower(static_cast<unsigned char>(text.back()))) {
    case 'k':
      scale = 1e3;
      break;
    case 'm':
      scale = 1e6;
      break;
    case 'b':
      scale = 1e9;
      break;
    case 't':
      scale = 1e12;
      break;
    default:
      break;
  }
  if (scale > 1) digits.remove_suffix(1);
  const size_t dot = digits.find('.');
  const auto is_digits = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!is_digits(digits.substr(0, dot)) || (dot != std::string_view::npos && !is_digits(digits.substr(dot + 1)))) {
    return std::nullopt;
  }
  if (scale == 1 && dot != std::string_view::npos) return std::nullopt;  // "70.5": 70.5 what?
  double value = std::stod(std::string(digits)) * scale;
  if (scale == 1 && value < 1e6) return std::nullopt;  // "70": 70 billion, surely; say so
  return value;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A name reduced to what identifies the model: "Meta-Llama-3-8B-Instruct" and "llama3-8b" are
// both "llama38b".
std::string NameKey(std::string_view name) {
  std::string lower = Lower(name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1));
  if (lower.rfind("meta-", 0) == 0) lower.erase(0, 5);
  static constexpr std::string_view kVariants[] = {"-instruct", "-it",   "-chat", "-hf",   "-base",
                                                   "-thinking", "-2507", "-v0.1", "-v0.2", "-v0.3"};
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view variant : kVariants) {
      if (EndsWith(lower, variant)) {
        lower.erase(lower.size() - variant.size());
        stripped = true;
      }
    }
  }
  std::string key;
  for (char c : lower) {
    if (c != '-' && c != '_' && c != '.') key += c;
  }
  return key;
}

constexpr double kMinParameters = 1e6;
constexpr double kMaxParameters = 1e14;

core::Result<double> ParameterFlag(std::string_view flag, std::string_view text) {
  auto value = ParseCount(text);
  if (!value || *value < kMinParameters || *value > kMaxParameters) {
    return core::Fail(core::Error::Usage(
        fmt::format("{}: expected a parameter count from 1m to 100t with a unit, such as 70b, 1.5t or 350m, "
                    "got '{}'",
                    flag, text)));
  }
  return *value;
}

}  // namespace

const std::vector<Model>& Models() {
  static const std::vector<Model> models = MakeModels();
  return models;
}

const std::vector<Model>& ModelPresets() {
  static const std::vector<Model> presets = [] {
    std::vector<Model> seeds;
    for (const auto& model : Models()) {
      if (model.name == "llama3-8b" || model.name == "llama3.1-405b" || model.name == "llama2-70b" ||
          model.origin == ModelOrigin::kPreset) {
        seeds.push_back(model);
      }
    }
    return seeds;
  }();
  return presets;
}

std::vector<std::string> NearestModelNames(std::string_view name, size_t count) {
  const std::string wanted = Lower(name.substr(0, 64));  // names are short; a long typo costs no more
  std::vector<std::pair<size_t, size_t>> ranked;         // (distance, index)
  const auto& models = Models();
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string candidate = Lower(models[i].name);
    size_t distance = EditDistance(wanted, candidate);
    // A name that contains what was typed ("qwen3-32" in "qwen3-32b") is as near as a typo.
    if (!wanted.empty() && candidate.find(wanted) != std::string::npos) distance = std::min<size_t>(distance, 1);
    ranked.emplace_back(distance, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (const auto& [distance, index] : ranked) {
    if (names.size() == count) break;
    names.push_back(models[index].name);
  }
  return names;
}

core::Result<Model> FindModel(std::string_view name, std::string_view flag) {
  const Model* folded = nullptr;
  for (const auto& model : Models()) {
    if (model.name == name) return model;
    if (Lower(model.name) == Lower(name)) folded = &model;
  }
  if (folded != nullptr) return *folded;  // "Qwen3-32B" is qwen3-32b
  std::string nearest;
  for (const auto& candidate : NearestModelNames(name)) nearest += (nearest.empty() ? "" : ", ") + candidate;
  return core::Fail(core::Error::Usage(fmt::format(
      "{}: unknown model '{}'; nearest: {} (tputrain models lists all {}; --params or --hf-config sizes any other)",
      flag, core::Utf8Excerpt(name, 80, "..."), nearest, Models().size())));
}

std::optional<RepoMatch> FindModelByRepo(std::string_view repo) {
  for (const auto& model : Models()) {
    if (!model.hf_repo.empty() && Lower(model.hf_repo) == Lower(repo)) {
      return RepoMatch{model, "MaxText reads " + model.name + "'s tokenizer from it"};
    }
  }
  const std::string key = NameKey(repo);
  const Model* found = nullptr;
  for (const auto& model : Models()) {
    if (NameKey(model.name) != key && (model.hf_repo.empty() || NameKey(model.hf_repo) != key)) continue;
    if (found != nullptr && found->parameters != model.parameters) return std::nullopt;  // ambiguous
    if (found == nullptr) found = &model;
  }
  if (found == nullptr) return std::nullopt;
  return RepoMatch{*found, "taken by its name for " + found->name};
}

core::Result<Model> ModelOfSize(std::string_view parameters, std::string_view active) {
  auto total = ParameterFlag("--params", parameters);
  if (!total) return core::Fail(total.error());
  Model model;
  model.origin = ModelOrigin::kParameterCount;
  model.parameters = *total;
  model.active_parameters = *total;
  if (!active.empty()) {
    auto per_token = ParameterFlag("--active-params", active);
    if (!per_token) return core::Fail(per_token.error());
    if (*per_token > *total) {
      return core::Fail(core::Error::Usage(fmt::format(
          "--active-params: {} is more than --params {}; expected the parameters one token uses", active, parameters)));
    }
    model.active_parameters = *per_token;
  }
  model.name = fmt::format("{:.4g}B parameters", model.parameters / 1e9);
  model.origin_detail = "--params " + std::string(parameters) +
                        (active.empty() ? std::string() : " --active-params " + std::string(active));
  return model;
}

std::string_view ModeName(WorkloadMode mode) { return mode == WorkloadMode::kTrain ? "train" : "serve"; }

std::string_view OriginName(ModelOrigin origin) {
  switch (origin) {
    case ModelOrigin::kMaxText:
      return "maxtext";
    case ModelOrigin::kPreset:
      return "preset";
    case ModelOrigin::kParameterCount:
      return "params";
    case ModelOrigin::kHuggingFaceConfig:
      return "hf-config";
  }
  return "maxtext";
}

}  // namespace tputrain::catalog
