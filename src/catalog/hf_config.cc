#include "tputrain/catalog/hf_config.h"

#include <optional>

#include <fmt/format.h>

#include "tputrain/core/utf8.h"

namespace tputrain::catalog {
namespace {

// An architecture read, and the MaxText decoder block with the same weights.
struct Architecture {
  std::string_view hf_class;    // architectures[0]
  std::string_view model_type;  // model_type
  DecoderBlock block;
  bool tied_by_default;  // transformers' default for tie_word_embeddings in that config class
};

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama", DecoderBlock::kLlama2, false},
    {"MistralForCausalLM", "mistral", DecoderBlock::kMistral, false},
    {"MixtralForCausalLM", "mixtral", DecoderBlock::kMixtral, false},
    {"Qwen2ForCausalLM", "qwen2", DecoderBlock::kQwen2, false},
    {"Qwen3ForCausalLM", "qwen3", DecoderBlock::kQwen3, false},
    {"Qwen3MoeForCausalLM", "qwen3_moe", DecoderBlock::kQwen3Moe, false},
    {"GemmaForCausalLM", "gemma", DecoderBlock::kGemma, true},
    {"Gemma2ForCausalLM", "gemma2", DecoderBlock::kGemma2, true},
    {"Gemma3ForCausalLM", "gemma3_text", DecoderBlock::kGemma3, true},
    {"Gemma3ForConditionalGeneration", "gemma3", DecoderBlock::kGemma3, true},
    {"DeepseekV2ForCausalLM", "deepseek_v2", DecoderBlock::kDeepSeek, false},
    {"DeepseekV3ForCausalLM", "deepseek_v3", DecoderBlock::kDeepSeek, false},
};

constexpr std::string_view kFlag = "--hf-config";
constexpr long kMaxDimension = 1L << 24;  // 16 million: past any model's width or vocabulary

std::string Supported() {
  std::string names;
  for (const auto& architecture : kArchitectures)
    names += (names.empty() ? "" : ", ") + std::string(architecture.hf_class);
  return names;
}

// A whole number field in [min, kMaxDimension]; `fallback` when absent or null, if there is one.
core::Result<long> Whole(const nlohmann::json& config, std::string_view key, long min,
                         std::optional<long> fallback = std::nullopt) {
  const auto found = config.find(std::string(key));
  if (found == config.end() || found->is_null()) {
    if (fallback) return *fallback;
    return core::Fail(core::Error::Usage(fmt::format("{}: '{}' is missing; expected a whole number", kFlag, key)));
  }
  if (found->is_number_integer()) {
    const auto value = found->get<int64_t>();
    if (value >= min && value <= kMaxDimension) return static_cast<long>(value);
  }
  return core::Fail(core::Error::Usage(fmt::format("{}: '{}' must be a whole number from {} to {}, got {}", kFlag, key,
                                                   min, kMaxDimension, core::Utf8Excerpt(found->dump(), 40, "..."))));
}

core::Result<bool> Flag(const nlohmann::json& config, std::string_view key, bool fallback) {
  const auto found = config.find(std::string(key));
  if (found == config.end() || found->is_null()) return fallback;
  if (found->is_boolean()) return found->get<bool>();
  return core::Fail(core::Error::Usage(fmt::format("{}: '{}' must be true or false", kFlag, key)));
}

const Architecture* FindArchitecture(const nlohmann::json& config, std::string& named) {
  const auto classes = config.find("architectures");
  if (classes != config.end() && classes->is_array() && !classes->empty() && (*classes)[0].is_string()) {
    named = (*classes)[0].get<std::string>();
    for (const auto& architecture : kArchitectures) {
      if (architecture.hf_class == named) return &architecture;
    }
    return nullptr;
  }
  const auto type = config.find("model_type");
  if (type != config.end() && type->is_string()) {
    named = type->get<std::string>();
    for (const auto& architecture : kArchitectures) {
      if (architecture.model_type == named) return &architecture;
    }
  }
  return nullptr;
}

// The fields every architecture here shares: transformers' names, MaxText's meaning.
core::Status ReadCommon(const nlohmann::json& text, ModelShape& shape) {
  auto hidden = Whole(text, "hidden_size", 1);
  if (!hidden) return core::Fail(hidden.error());
  auto layers = Whole(text, "num_hidden_layers", 1);
  if (!layers) return core::Fail(layers.error());
  auto heads = Whole(text, "num_attention_heads", 1);
  if (!heads) return core::Fail(heads.error());
  auto kv_heads = Whole(text, "num_key_value_heads", 1, *heads);
  if (!kv_heads) return core::Fail(kv_heads.error());
  auto head_dim = Whole(text, "head_dim", 1, *hidden / *heads);
  if (!head_dim) return core::Fail(head_dim.error());
  auto mlp = Whole(text, "intermediate_size", 1);
  if (!mlp) return core::Fail(mlp.error());
  auto vocab = Whole(text, "vocab_size", 1);
  if (!vocab) return core::Fail(vocab.error());
  // Qwen 2 always has query, key and value biases; its config does not say so.
  auto bias = Flag(text, "attention_bias", shape.decoder_block == DecoderBlock::kQwen2);
  if (!bias) return core::Fail(bias.error());
  shape.emb_dim = *hidden;
  shape.num_decoder_layers = *layers;
  shape.num_query_heads = *heads;
  shape.num_kv_heads = *kv_heads;
  shape.head_dim = *head_dim;
  shape.mlp_dim = *mlp;
  shape.vocab_size = *vocab;
  shape.attention_bias = *bias;
  return {};
}

core::Status ReadExperts(const nlohmann::json& text, const Architecture& architecture, ModelShape& shape) {
  if (architecture.block == DecoderBlock::kMixtral) {
    auto experts = Whole(text, "num_local_experts", 1);
    if (!experts) return core::Fail(experts.error());
    auto per_token = Whole(text, "num_experts_per_tok", 1);
    if (!per_token) return core::Fail(per_token.error());
    shape.num_experts = *experts;
    shape.num_experts_per_tok = *per_token;
    shape.moe_mlp_dim = shape.mlp_dim;
  } else if (architecture.block == DecoderBlock::kQwen3Moe) {
    auto experts = Whole(text, "num_experts", 1);
    if (!experts) return core::Fail(experts.error());
    auto per_token = Whole(text, "num_experts_per_tok", 1);
    if (!per_token) return core::Fail(per_token.error());
    auto hidden = Whole(text, "moe_intermediate_size", 1);
    if (!hidden) return core::Fail(hidden.error());
    auto step = Whole(text, "decoder_sparse_step", 1, 1);
    if (!step) return core::Fail(step.error());
    const auto dense_layers = text.find("mlp_only_layers");
    if (*step != 1 || (dense_layers != text.end() && dense_layers->is_array() && !dense_layers->empty())) {
      return core::Fail(
          core::Error::Usage(fmt::format("{}: only Qwen3 MoE checkpoints whose every layer has experts are read "
                                         "(decoder_sparse_step 1, no mlp_only_layers)",
                                         kFlag)));
    }
    shape.num_experts = *experts;
    shape.num_experts_per_tok = *per_token;
    shape.moe_mlp_dim = *hidden;
  } else if (architecture.block == DecoderBlock::kDeepSeek) {
    auto experts = Whole(text, "n_routed_experts", 1);
    if (!experts) return core::Fail(experts.error());
    auto per_token = Whole(text, "num_experts_per_tok", 1);
    if (!per_token) return core::Fail(per_token.error());
    auto hidden = Whole(text, "moe_intermediate_size", 1);
    if (!hidden) return core::Fail(hidden.error());
    auto shared = Whole(text, "n_shared_experts", 0, 0);
    if (!shared) return core::Fail(shared.error());
    auto dense = Whole(text, "first_k_dense_replace", 0, 0);
    if (!dense) return core::Fail(dense.error());
    auto q_lora = Whole(text, "q_lora_rank", 0, 0);  // null: queries are not compressed (V2-Lite)
    if (!q_lora) return core::Fail(q_lora.error());
    auto kv_lora = Whole(text, "kv_lora_rank", 1);
    if (!kv_lora) return core::Fail(kv_lora.error());
    auto nope = Whole(text, "qk_nope_head_dim", 1);
    if (!nope) return core::Fail(nope.error());
    auto rope = Whole(text, "qk_rope_head_dim", 1);
    if (!rope) return core::Fail(rope.error());
    auto value = Whole(text, "v_head_dim", 1);
    if (!value) return core::Fail(value.error());
    auto frequency = Whole(text, "moe_layer_freq", 1, 1);
    if (!frequency) return core::Fail(frequency.error());
    if (*frequency != 1) {
      return core::Fail(
          core::Error::Usage(fmt::format("{}: only moe_layer_freq 1 is read (got {})", kFlag, *frequency)));
    }
    shape.num_experts = *experts;
    shape.num_experts_per_tok = *per_token;
    shape.moe_mlp_dim = *hidden;
    shape.shared_experts = *shared;
    shape.first_num_dense_layers = *dense;
    shape.attention_type = AttentionType::kMla;
    shape.q_lora_rank = *q_lora;
    shape.kv_lora_rank = *kv_lora;
    shape.qk_nope_head_dim = *nope;
    shape.qk_rope_head_dim = *rope;
    shape.v_head_dim = *value;
  }
  if (shape.num_experts_per_tok > shape.num_experts) {
    return core::Fail(core::Error::Usage(fmt::format("{}: num_experts_per_tok ({}) is more than the experts ({})",
                                                     kFlag, shape.num_experts_per_tok, shape.num_experts)));
  }
  return {};
}

}  // namespace

core::Result<Model> ModelOfHfConfig(const nlohmann::json& config, std::string_view name) {
  if (!config.is_object()) {
    return core::Fail(core::Error::Usage(fmt::format("{}: expected a JSON object (a config.json)", kFlag)));
  }
  std::string named;
  const Architecture* architecture = FindArchitecture(config, named);
  if (architecture == nullptr) {
    return core::Fail(core::Error::Usage(fmt::format(
        "{}: architecture '{}' is not one tputrain can size; expected one of {} (or --params)", kFlag,
        named.empty() ? std::string("(none: no architectures or model_type)") : core::Utf8Excerpt(named, 80, "..."),
        Supported())));
  }
  // Gemma 3's multimodal checkpoints nest the decoder's fields under text_config.
  const nlohmann::json* text = &config;
  const auto nested = config.find("text_config");
  if (architecture->hf_class == "Gemma3ForConditionalGeneration") {
    if (nested == config.end() || !nested->is_object()) {
      return core::Fail(core::Error::Usage(fmt::format("{}: 'text_config' is missing; expected an object", kFlag)));
    }
    text = &*nested;
  }

  ModelShape shape;
  shape.decoder_block = architecture->block;
  if (auto common = ReadCommon(*text, shape); !common) return core::Fail(common.error());
  auto tied = Flag(config, "tie_word_embeddings", architecture->tied_by_default);
  if (!tied) return core::Fail(tied.error());
  shape.logits_via_embedding = *tied;
  if (shape.num_query_heads % shape.num_kv_heads != 0) {
    return core::Fail(
        core::Error::Usage(fmt::format("{}: num_attention_heads ({}) is not a multiple of num_key_value_heads ({})",
                                       kFlag, shape.num_query_heads, shape.num_kv_heads)));
  }
  if (architecture->block == DecoderBlock::kGemma2) {
    // MaxText's Gemma 2 layer holds a local and a global attention layer: its layer count is half.
    if (shape.num_decoder_layers % 2 != 0) {
      return core::Fail(
          core::Error::Usage(fmt::format("{}: Gemma 2 pairs local and global layers; num_hidden_layers ({}) is odd",
                                         kFlag, shape.num_decoder_layers)));
    }
    shape.num_decoder_layers /= 2;
  }
  if (auto experts = ReadExperts(*text, *architecture, shape); !experts) return core::Fail(experts.error());

  Model model;
  model.name = std::string(name);
  model.origin = ModelOrigin::kHuggingFaceConfig;
  model.origin_detail =
      fmt::format("--hf-config ({}, sized as MaxText's {} decoder)", named, DecoderBlockName(architecture->block));
  auto count = CountParameters(shape);
  model.parameters = count.total;
  model.active_parameters = count.active;
  model.shape = shape;
  return model;
}

}  // namespace tputrain::catalog
