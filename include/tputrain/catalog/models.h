#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/catalog/model_shape.h"
#include "tputrain/core/result.h"

namespace tputrain::catalog {

enum class WorkloadMode { kTrain, kServe };

// Where a model's facts come from.
enum class ModelOrigin {
  kMaxText,            // a config of the pinned MaxText (the generated table)
  kPreset,             // one of tputrain's own (a seed's Saxml model, the CPU smoke test)
  kParameterCount,     // --params: a size and nothing else
  kHuggingFaceConfig,  // --hf-config: a checkpoint's config.json
};

// What sizing a slice and building a workload need to know of a model. A MaxText model's
// parameters are computed from its shape; the seeds' presets add their own defaults on top.
struct Model {
  std::string name;         // "llama3-8b"; for --params "70B parameters"
  std::string description;  // what a preset is for ("Llama 3 8B pre-training ... (seeds 000/001)"); else ""
  ModelOrigin origin = ModelOrigin::kMaxText;
  std::string origin_detail;  // "MaxText 0.2.5 configs/models/llama3-8b.yml", "--hf-config FILE (LlamaForCausalLM)"
  WorkloadMode default_mode = WorkloadMode::kTrain;
  double parameters = 0;         // count, e.g. 8.03e9
  double active_parameters = 0;  // per token; below `parameters` for a mixture of experts
  std::optional<ModelShape> shape;
  std::string default_accelerator = "v6e";  // family
  std::string default_dtype = "bf16";       // "bf16" or "int8"
  // MaxText model config (model_name=...); empty when MaxText cannot train the model.
  std::string maxtext_model_name;
  std::string hf_repo;  // the Hugging Face checkpoint vLLM would load; "" when unknown
  int per_device_batch_size = 1;
  int max_target_length = 2048;
  std::vector<std::string> extra_maxtext_args;  // e.g. hardware=cpu for the CPU smoke preset
  int default_slices = 1;
  int min_chips_per_slice = 0;  // a floor the workload itself sets (e.g. an 8-chip server)

  bool mixture_of_experts() const { return active_parameters < parameters; }
};

// Every model known by name: the pinned MaxText's (with the seeds' defaults where a seed used
// one), then tputrain's own presets.
const std::vector<Model>& Models();
// The seeds' presets alone (five).
const std::vector<Model>& ModelPresets();
// A model by name; a usage error naming `flag` and the nearest names otherwise.
core::Result<Model> FindModel(std::string_view name, std::string_view flag = "--model");
// Up to `count` known names closest to `name` (by edit distance, ties in table order), for a
// "did you mean" when it is not one of them.
std::vector<std::string> NearestModelNames(std::string_view name, size_t count = 3);

// The model a Hugging Face repo id ("meta-llama/Llama-3.3-70B-Instruct") names: the one whose
// MaxText tokenizer repo it is, else the one whose name it spells once case, punctuation, an
// org prefix ("Meta-") and a variant suffix (-Instruct, -it, -chat, -hf, -Base, -2507, -v0.1) are
// set aside. Nothing when none does, or when the names that match differ in size. `how` says
// which rule matched.
struct RepoMatch {
  Model model;
  std::string how;  // "MaxText's tokenizer repo for llama3.1-8b", "by name: llama3.3-70b"
};
std::optional<RepoMatch> FindModelByRepo(std::string_view repo);

// A model of a size and nothing else (--params, --active-params): "70b", "1.5t", "350m",
// "8030261248". `active` empty: dense. A usage error naming the flag otherwise.
core::Result<Model> ModelOfSize(std::string_view parameters, std::string_view active);

std::string_view ModeName(WorkloadMode mode);
std::string_view OriginName(ModelOrigin origin);  // "maxtext", "preset", "params", "hf-config"

// The pinned MaxText the table was generated from ("0.2.5"), and where its facts were read.
std::string_view MaxTextVersion();
std::string_view MaxTextModelsSource();

}  // namespace tputrain::catalog
