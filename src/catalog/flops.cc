#include "tputrain/catalog/flops.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tputrain::catalog {
namespace {

core::Result<long> ParsePositive(std::string_view key, std::string_view value) {
  long number = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || number <= 0) {
    return core::Fail(core::Error::Usage("--set " + std::string(key) + ": expected a positive integer, got '" +
                                         std::string(value) + "'"));
  }
  return number;
}

// MaxText's mlp_activations is a list such as ["silu","linear"] or "[silu, linear]" on the
// command line; only its length matters here.
core::Result<long> CountActivations(std::string_view value) {
  std::string_view inner = value;
  if (!inner.empty() && inner.front() == '[') inner.remove_prefix(1);
  if (!inner.empty() && inner.back() == ']') inner.remove_suffix(1);
  if (inner.find_first_not_of(" ") == std::string_view::npos) {
    return core::Fail(core::Error::Usage("--set mlp_activations: expected a list such as [silu,linear]"));
  }
  long count = 1;
  for (char c : inner) count += c == ',' ? 1 : 0;
  return count;
}

}  // namespace

bool HasDenseTrainingFlops(const ModelShape& s) {
  // MaxText's calculate_tflops_training_per_device counts these apart: experts, latent attention,
  // Gemma's and gpt-oss's mixed local and global layers, Llama 4's chunked attention, linear
  // attention, GPT-3's fused projections.
  switch (s.decoder_block) {
    case DecoderBlock::kLlama2:
    case DecoderBlock::kMistral:
    case DecoderBlock::kGemma:
    case DecoderBlock::kQwen2:
    case DecoderBlock::kQwen3:
    case DecoderBlock::kOlmo3:
      return !IsMixtureOfExperts(s) && s.attention_type != AttentionType::kMla &&
             s.attention_type != AttentionType::kCompressed;
    default:
      return false;
  }
}

core::Result<TrainingShape> TrainingShapeOf(const Model& model) {
  if (model.maxtext_model_name.empty() || !model.shape) {
    return core::Fail(core::Error::Usage("--model " + model.name + ": not a MaxText training model"));
  }
  const ModelShape& s = *model.shape;
  TrainingShape shape;
  shape.per_device_batch_size = model.per_device_batch_size;
  shape.max_target_length = model.max_target_length;
  shape.emb_dim = s.emb_dim;
  shape.mlp_dim = s.mlp_dim;
  shape.num_decoder_layers = s.num_decoder_layers;
  shape.num_query_heads = s.num_query_heads;
  shape.num_kv_heads = s.num_kv_heads;
  shape.head_dim = s.head_dim;
  shape.vocab_size = s.vocab_size;
  shape.mlp_activations = s.mlp_activations;
  shape.share_kv_projections = s.share_kv_projections;
  // A preset's own MaxText arguments (the CPU smoke shape) count as overrides too.
  for (const auto& arg : model.extra_maxtext_args) {
    size_t equals = arg.find('=');
    if (equals == std::string::npos) continue;
    auto applied =
        ApplyTrainingOverride(shape, std::string_view(arg).substr(0, equals), std::string_view(arg).substr(equals + 1));
    if (!applied) return core::Fail(applied.error());
  }
  return shape;
}

core::Result<bool> ApplyTrainingOverride(TrainingShape& shape, std::string_view key, std::string_view value) {
  if (key == "per_device_batch_size") {
    char* end = nullptr;
    std::string text(value);
    double number = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(number > 0) || !std::isfinite(number)) {
      return core::Fail(
          core::Error::Usage("--set per_device_batch_size: expected a positive number, got '" + text + "'"));
    }
    shape.per_device_batch_size = number;
    return true;
  }
  if (key == "mlp_activations") {
    auto count = CountActivations(value);
    if (!count) return core::Fail(count.error());
    shape.mlp_activations = *count;
    return true;
  }
  if (key == "share_kv_projections") {
    shape.share_kv_projections = value == "true" || value == "True" || value == "1";
    return true;
  }
  struct Field {
    std::string_view key;
    long TrainingShape::*member;
  };
  static constexpr Field kFields[] = {
      {"max_target_length", &TrainingShape::max_target_length},
      {"gradient_accumulation_steps", &TrainingShape::gradient_accumulation_steps},
      {"base_emb_dim", &TrainingShape::emb_dim},
      {"base_mlp_dim", &TrainingShape::mlp_dim},
      {"base_num_decoder_layers", &TrainingShape::num_decoder_layers},
      {"base_num_query_heads", &TrainingShape::num_query_heads},
      {"base_num_kv_heads", &TrainingShape::num_kv_heads},
      {"head_dim", &TrainingShape::head_dim},
      {"vocab_size", &TrainingShape::vocab_size},
  };
  for (const auto& field : kFields) {
    if (field.key != key) continue;
    auto number = ParsePositive(key, value);
    if (!number) return core::Fail(number.error());
    shape.*field.member = *number;
    return true;
  }
  return false;
}

// The same terms as MaxText, in the same order: per-layer matmul FLOPs for the gated MLP, the
// QKV and output projections and the unembedding, ×3 for forward plus backward; attention
// scores and values halved for the causal mask.
StepFlops TrainingTflopsPerDevice(const TrainingShape& s) {
  const double tokens = s.per_device_batch_size * static_cast<double>(s.max_target_length);
  const double emb = static_cast<double>(s.emb_dim);
  const double layers = static_cast<double>(s.num_decoder_layers);
  const double mlp = static_cast<double>(s.mlp_dim);
  const double heads = static_cast<double>(s.num_query_heads);
  const double head_dim = static_cast<double>(s.head_dim);

  const double ffn_in = 2 * tokens * mlp * emb * static_cast<double>(s.mlp_activations);
  const double ffn_out = 2 * tokens * mlp * emb;
  const double ffn_all_layers = (ffn_in + ffn_out) * layers;
  const double kv_multiplier = s.share_kv_projections ? 1 : 2;
  const double qkv = 2 * tokens * emb * (heads + kv_multiplier * static_cast<double>(s.num_kv_heads)) * head_dim;
  const double projection = 2 * tokens * emb * heads * head_dim;
  const double noncausal_attention =
      4 * s.per_device_batch_size * std::pow(static_cast<double>(s.max_target_length), 2) * heads * head_dim;
  const double causal_attention = noncausal_attention / 2;
  const double unembedding = 2 * tokens * emb * static_cast<double>(s.vocab_size);

  StepFlops flops;
  const double accumulation = static_cast<double>(s.gradient_accumulation_steps);
  flops.learnable_tflops = (ffn_all_layers + (qkv + projection) * layers + unembedding) * 3 / 1e12 * accumulation;
  flops.attention_tflops = causal_attention * layers * 3 / 1e12 * accumulation;
  flops.total_tflops = flops.learnable_tflops + flops.attention_tflops;
  return flops;
}

double TrainingTokensPerDevice(const TrainingShape& shape) {
  return static_cast<double>(shape.max_target_length) * shape.per_device_batch_size *
         static_cast<double>(shape.gradient_accumulation_steps);
}

}  // namespace tputrain::catalog
