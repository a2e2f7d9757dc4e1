#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::catalog {

enum class WorkloadMode { kTrain, kServe };

// What a preset needs to size a slice and to build its workload. Training presets carry the
// MaxText model shape that the FLOP arithmetic uses.
struct ModelPreset {
  std::string name;  // "llama3-8b"
  std::string description;
  WorkloadMode default_mode = WorkloadMode::kTrain;
  double parameters = 0;            // count, e.g. 8.03e9
  std::string default_accelerator;  // family, e.g. "v6e"
  std::string default_dtype;        // "bf16" or "int8"
  // MaxText model config (model_name=...) and the training defaults of the seed.
  std::string maxtext_model_name;
  int per_device_batch_size = 1;
  int max_target_length = 2048;
  // MaxText shape (for FLOP estimates): embed dim, MLP dim, layers, heads, kv heads, head dim,
  // vocabulary size; and overrides passed on the command line for tiny presets.
  int emb_dim = 0;
  int mlp_dim = 0;
  int num_decoder_layers = 0;
  int num_query_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int vocab_size = 0;
  std::vector<std::string> extra_maxtext_args;  // e.g. hardware=cpu for the CPU smoke preset
  int default_slices = 1;
  int min_chips_per_slice = 0;  // a floor the workload itself sets (e.g. an 8-chip server)
};

const std::vector<ModelPreset>& ModelPresets();
core::Result<ModelPreset> FindModelPreset(std::string_view name);
std::string_view ModeName(WorkloadMode mode);

}  // namespace tputrain::catalog
