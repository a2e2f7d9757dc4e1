#pragma once

#include <string>
#include <string_view>

#include "tputrain/catalog/models.h"
#include "tputrain/core/result.h"

// Training work per step and device, computed as MaxText computes it for its step lines
// (maxtext/utils/maxtext_utils.py in MaxText 0.2.5: calculate_tflops_training_per_device and
// calculate_tokens_training_per_device), so that tputrain's summary and MFU agree with what
// MaxText prints. Dense decoders with standard attention (Llama 2/3 and MaxText's default
// decoder) only: MoE, MLA, Gemma's mixed attention and multimodal models count differently.
namespace tputrain::catalog {

// The MaxText settings the arithmetic reads, named after MaxText's config keys.
struct TrainingShape {
  double per_device_batch_size = 1;  // MaxText allows fractions (e.g. 0.5)
  long max_target_length = 2048;
  long gradient_accumulation_steps = 1;
  long emb_dim = 0;             // base_emb_dim
  long mlp_dim = 0;             // base_mlp_dim
  long num_decoder_layers = 0;  // base_num_decoder_layers
  long num_query_heads = 0;     // base_num_query_heads
  long num_kv_heads = 0;        // base_num_kv_heads
  long head_dim = 0;
  long vocab_size = 0;
  long mlp_activations = 2;  // len(mlp_activations): ["silu", "linear"] in base.yml
  bool share_kv_projections = false;
};

// The model's shape with its training defaults (per-device batch, sequence length). Fails for a
// model MaxText cannot train (no model_name, no shape).
core::Result<TrainingShape> TrainingShapeOf(const Model& model);

// Whether TrainingTflopsPerDevice is MaxText's own arithmetic for this shape: dense decoders with
// standard attention (Llama, Mistral, Gemma 1, Qwen 2/3, OLMo 3). For the others a run's TFLOP/s
// come from MaxText's step lines.
bool HasDenseTrainingFlops(const ModelShape& shape);

// Applies one MaxText override (`key=value` as given to `--set`) that changes the arithmetic;
// returns false for keys that do not (they are left to MaxText). A bad number is a usage error
// naming the key.
core::Result<bool> ApplyTrainingOverride(TrainingShape& shape, std::string_view key, std::string_view value);

struct StepFlops {
  double total_tflops = 0;      // per device per step, what MaxText divides by the step time
  double learnable_tflops = 0;  // weight matmuls, forward and backward
  double attention_tflops = 0;  // causal attention
};

StepFlops TrainingTflopsPerDevice(const TrainingShape& shape);
double TrainingTokensPerDevice(const TrainingShape& shape);

}  // namespace tputrain::catalog
