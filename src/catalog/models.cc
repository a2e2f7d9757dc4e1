#include "tputrain/catalog/models.h"

namespace tputrain::catalog {
namespace {

// Parameter counts and shapes: MaxText configs/models/<name>.yml (d_model, layers, heads, kv
// heads, MLP dim, vocabulary), with counts computed from them (embedding + untied head, GQA
// attention, gated MLP); Saxml LmCloudSpmd175B (saxml/server/pax/lm/params/lm_cloud.py:
// 96 layers, model dims 12288, 96 heads of 128).
std::vector<ModelPreset> MakePresets() {
  std::vector<ModelPreset> presets;

  ModelPreset llama3_8b;
  llama3_8b.name = "llama3-8b";
  llama3_8b.description = "Llama 3 8B pre-training with MaxText on a Ray cluster (seeds 000/001)";
  llama3_8b.default_mode = WorkloadMode::kTrain;
  llama3_8b.parameters = 8.03e9;
  llama3_8b.default_accelerator = "v6e";
  llama3_8b.default_dtype = "bf16";
  llama3_8b.maxtext_model_name = "llama3-8b";
  llama3_8b.per_device_batch_size = 1;
  llama3_8b.max_target_length = 4096;  // seed 001's job: max_target_length=4096
  llama3_8b.emb_dim = 4096;
  llama3_8b.mlp_dim = 14336;
  llama3_8b.num_decoder_layers = 32;
  llama3_8b.num_query_heads = 32;
  llama3_8b.num_kv_heads = 8;
  llama3_8b.head_dim = 128;
  llama3_8b.vocab_size = 128256;
  presets.push_back(llama3_8b);

  ModelPreset llama31_405b;
  llama31_405b.name = "llama3.1-405b";
  llama31_405b.description = "Llama 3.1 405B served by JetStream + Pathways on LeaderWorkerSet (seed 002)";
  llama31_405b.default_mode = WorkloadMode::kServe;
  llama31_405b.parameters = 405.85e9;
  llama31_405b.default_accelerator = "v6e";
  llama31_405b.default_dtype = "int8";  // the seed serves a quantized checkpoint (quantization=int8)
  llama31_405b.maxtext_model_name = "llama3.1-405b";
  llama31_405b.max_target_length = 2048;
  llama31_405b.emb_dim = 16384;
  llama31_405b.mlp_dim = 53248;
  llama31_405b.num_decoder_layers = 126;
  llama31_405b.num_query_heads = 128;
  llama31_405b.num_kv_heads = 8;
  llama31_405b.head_dim = 128;
  llama31_405b.vocab_size = 128256;
  presets.push_back(llama31_405b);

  ModelPreset llama2_70b;
  llama2_70b.name = "llama2-70b";
  llama2_70b.description = "Llama 2 70B, disaggregated JetStream serving on two slices (seed 002)";
  llama2_70b.default_mode = WorkloadMode::kServe;
  llama2_70b.parameters = 68.98e9;
  llama2_70b.default_accelerator = "v6e";
  llama2_70b.default_dtype = "int8";
  llama2_70b.maxtext_model_name = "llama2-70b";
  llama2_70b.max_target_length = 2048;
  llama2_70b.emb_dim = 8192;
  llama2_70b.mlp_dim = 28672;
  llama2_70b.num_decoder_layers = 80;
  llama2_70b.num_query_heads = 64;
  llama2_70b.num_kv_heads = 8;
  llama2_70b.head_dim = 128;
  llama2_70b.vocab_size = 32000;
  llama2_70b.default_slices = 2;       // one prefill slice and one generate slice
  llama2_70b.min_chips_per_slice = 8;  // inference_server=ExperimentalMaxtextDisaggregatedServer_8
  presets.push_back(llama2_70b);

  ModelPreset saxml_175b;
  saxml_175b.name = "saxml-175b-test";
  saxml_175b.description = "Saxml LmCloudSpmd175B32Test (random weights) on v5e, one 4x8 slice per replica (seed 003)";
  saxml_175b.default_mode = WorkloadMode::kServe;
  saxml_175b.parameters = 175e9;
  saxml_175b.default_accelerator = "v5e";
  saxml_175b.default_dtype = "bf16";
  saxml_175b.emb_dim = 12288;
  saxml_175b.mlp_dim = 49152;
  saxml_175b.num_decoder_layers = 96;
  saxml_175b.num_query_heads = 96;
  saxml_175b.num_kv_heads = 96;
  saxml_175b.head_dim = 128;
  saxml_175b.vocab_size = 50304;
  presets.push_back(saxml_175b);

  // A model small enough to train on CPU in seconds on any Ray cluster (MaxText's default decoder
  // shrunk by overrides; hardware=cpu needs skip_jax_distributed_system, or it reads JOB_INDEX).
  // It exercises the whole submit path before TPUs are paid for.
  ModelPreset cpu_smoke;
  cpu_smoke.name = "maxtext-cpu-smoke";
  cpu_smoke.description = "Tiny MaxText model trained on CPU for a few steps: tries the submit path on any Ray cluster";
  cpu_smoke.default_mode = WorkloadMode::kTrain;
  cpu_smoke.parameters = 1.15e5;
  cpu_smoke.default_accelerator = "v6e";  // what `plan` sizes; `submit` runs it on CPU
  cpu_smoke.default_dtype = "bf16";
  cpu_smoke.maxtext_model_name = "default";
  cpu_smoke.per_device_batch_size = 1;
  cpu_smoke.max_target_length = 128;
  cpu_smoke.emb_dim = 64;
  cpu_smoke.mlp_dim = 128;
  cpu_smoke.num_decoder_layers = 2;
  cpu_smoke.num_query_heads = 2;
  cpu_smoke.num_kv_heads = 2;
  cpu_smoke.head_dim = 32;
  cpu_smoke.vocab_size = 256;
  cpu_smoke.extra_maxtext_args = {"steps=8",
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
  presets.push_back(cpu_smoke);

  return presets;
}

}  // namespace

const std::vector<ModelPreset>& ModelPresets() {
  static const std::vector<ModelPreset> presets = MakePresets();
  return presets;
}

core::Result<ModelPreset> FindModelPreset(std::string_view name) {
  std::string names;
  for (const auto& preset : ModelPresets()) {
    if (preset.name == name) return preset;
    names += (names.empty() ? "" : ", ") + preset.name;
  }
  return core::Fail(core::Error::Usage("--model: unknown model '" + std::string(name) + "'; valid models: " + names));
}

std::string_view ModeName(WorkloadMode mode) { return mode == WorkloadMode::kTrain ? "train" : "serve"; }

}  // namespace tputrain::catalog
