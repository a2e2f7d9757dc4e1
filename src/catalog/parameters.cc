// Parameter counts from a decoder's dimensions, weight by weight as MaxText's layers build them
// (maxtext/layers and maxtext/models of the pinned MaxText): a tputrain unit test holds each count
// to the published size, and an integration test to MaxText's own count of the same config.
#include "tputrain/catalog/model_shape.h"

namespace tputrain::catalog {
namespace {

using Count = double;  // exact: counts stay far below 2^53 (a trillion is 2^40)

bool IsMla(const ModelShape& s) { return s.attention_type == AttentionType::kMla; }

// Which weights a decoder block has beyond the plain pre-norm transformer's.
struct BlockTraits {
  int sublayers = 1;                // Gemma 2 pairs a local and a global attention layer in one decoder layer
  int norms_per_layer = 2;          // pre-attention and pre-MLP RMSNorms (Gemma 2/3/4 add post-norms)
  bool qk_norm = false;             // per-head-dim RMSNorms on queries and keys
  bool qk_norm_all_heads = false;   // OLMo 3: the query and key norms span every head
  bool output_gate = false;         // Qwen3-Next and Qwen 3.5 full attention: the query projection doubled
  bool shared_expert_gate = false;  // Qwen3-Next and Qwen 3.5: a sigmoid gate on the shared expert
  bool sinks = false;               // gpt-oss: one attention sink per query head
  bool gemma4 = false;              // Gemma 4: a per-layer output scale; per-expert scales, the shared expert at
                                    // mlp_dim and four more scales and norms in its experts' block
  bool gpt3 = false;                // GPT-3: LayerNorms with biases; biases on every projection
};

BlockTraits TraitsOf(const ModelShape& s) {
  BlockTraits traits;
  switch (s.decoder_block) {
    case DecoderBlock::kGemma2:
      traits.sublayers = 2;
      traits.norms_per_layer = 4;
      break;
    case DecoderBlock::kGemma3:
      traits.norms_per_layer = 4;
      traits.qk_norm = true;
      break;
    case DecoderBlock::kGemma4:
    case DecoderBlock::kGemma4Small:
      traits.norms_per_layer = 4;
      traits.qk_norm = true;
      traits.gemma4 = true;
      break;
    case DecoderBlock::kQwen3:
    case DecoderBlock::kQwen3Moe:
    case DecoderBlock::kQwen3CustomMoe:
      traits.qk_norm = true;
      break;
    case DecoderBlock::kOlmo3:
      traits.qk_norm_all_heads = true;
      break;
    case DecoderBlock::kEnvy:
      traits.norms_per_layer = 3;  // pre-attention, post-attention, post-MLP
      traits.qk_norm = true;
      break;
    case DecoderBlock::kQwen3Next:
    case DecoderBlock::kQwen35:
      traits.qk_norm = true;
      traits.output_gate = true;
      traits.shared_expert_gate = true;
      break;
    case DecoderBlock::kGptOss:
      traits.sinks = true;
      break;
    case DecoderBlock::kGpt3:
      traits.gpt3 = true;
      break;
    default:
      break;
  }
  return traits;
}

// `kv_from_earlier`: a Gemma 4 small layer reusing an earlier layer's keys and values.
Count Attention(const ModelShape& s, const BlockTraits& traits, long kv_heads, long head_dim, bool share_kv,
                bool kv_from_earlier = false) {
  const Count e = static_cast<Count>(s.emb_dim);
  const Count q_heads = static_cast<Count>(s.num_query_heads);
  if (IsMla(s)) {
    const Count qk_head = static_cast<Count>(s.qk_nope_head_dim + s.qk_rope_head_dim);
    const Count lora_q = static_cast<Count>(s.q_lora_rank);
    const Count lora_kv = static_cast<Count>(s.kv_lora_rank);
    Count query = s.q_lora_rank > 0 ? e * lora_q + lora_q + lora_q * q_heads * qk_head : e * q_heads * qk_head;
    Count key_value = e * (lora_kv + static_cast<Count>(s.qk_rope_head_dim)) + lora_kv +
                      lora_kv * q_heads * static_cast<Count>(s.qk_nope_head_dim + s.v_head_dim);
    Count out = q_heads * static_cast<Count>(s.v_head_dim) * e;
    // DeepSeek V3.2's sparse-attention indexer: its own query heads off the compressed query, one
    // key head, a per-head weight, and a LayerNorm on the key.
    Count indexer = 0;
    if (s.use_indexer) {
      const Count heads = static_cast<Count>(s.indexer_n_heads);
      const Count dim = static_cast<Count>(s.indexer_head_dim);
      indexer = lora_q * heads * dim + e * dim + e * heads + 2 * dim;
    }
    return query + key_value + out + indexer;
  }
  const Count d = static_cast<Count>(head_dim);
  const Count kv = static_cast<Count>(kv_heads);
  Count query = e * q_heads * d * (traits.output_gate ? 2 : 1);
  Count key_value = kv_from_earlier ? 0 : e * kv * d * (share_kv ? 1 : 2);
  Count out = q_heads * d * (s.attention_output_dim > 0 ? static_cast<Count>(s.attention_output_dim) : e);
  Count extra = 0;
  if (traits.qk_norm) extra += (kv_from_earlier ? 1 : 2) * d;
  if (traits.qk_norm_all_heads) extra += (q_heads + kv) * d;
  if (s.attention_bias || traits.gpt3) {
    extra += (q_heads + 2 * kv) * d;
    if (s.decoder_block != DecoderBlock::kQwen2) extra += e;  // Qwen 2's output projection has none
  }
  if (traits.sinks) extra += q_heads;
  return query + key_value + out + extra;
}

// One feed-forward block of hidden size `hidden` over `width` features (emb_dim unless the
// experts work narrower): in (gated: two) and out projections.
Count Mlp(const ModelShape& s, Count hidden, bool bias, Count width = 0) {
  const Count e = width > 0 ? width : static_cast<Count>(s.emb_dim);
  const Count activations = static_cast<Count>(s.mlp_activations);
  Count weights = e * hidden * activations + hidden * e;
  if (bias) weights += hidden * activations + e;
  return weights;
}

struct LayerCount {
  Count total = 0;
  Count active = 0;
};

LayerCount MixtureOfExperts(const ModelShape& s, const BlockTraits& traits) {
  // Qwen3 custom MoE: experts over a narrower width, normed there, projected back up after.
  const Count narrow = static_cast<Count>(s.moe_expert_input_dim > 0 ? s.moe_expert_input_dim : 0);
  const Count e = narrow > 0 ? narrow : static_cast<Count>(s.emb_dim);
  const Count experts = static_cast<Count>(s.num_experts);
  const Count hidden = static_cast<Count>(s.moe_mlp_dim > 0 ? s.moe_mlp_dim : s.mlp_dim);
  const Count expert = Mlp(s, hidden, s.mlp_bias, e);
  Count router = e * experts;
  if (narrow > 0) router += narrow + narrow * static_cast<Count>(s.emb_dim);
  // DeepSeek's router bias is a load-balancing variable MaxText updates apart, not a weight.
  if (s.routed_bias && s.decoder_block != DecoderBlock::kDeepSeek && s.decoder_block != DecoderBlock::kDeepSeek4) {
    router += experts;
  }
  // Gemma 4's shared expert is as wide as its dense MLP would be.
  const Count shared_hidden = static_cast<Count>(traits.gemma4 ? s.mlp_dim : static_cast<long>(hidden));
  Count shared = s.shared_experts > 0 ? Mlp(s, static_cast<Count>(s.shared_experts) * shared_hidden, s.mlp_bias, e) : 0;
  if (traits.shared_expert_gate && s.shared_experts > 0) shared += e;
  if (traits.gemma4) router += experts + 4 * e;  // per-expert scales, a scale and three norms
  return {router + experts * expert + shared, router + static_cast<Count>(s.num_experts_per_tok) * expert + shared};
}

// Qwen3-Next's Gated DeltaNet: the fused q/k/v/z and b/a projections, the short convolution over
// q, k and v, the per-head decay (A_log) and step (dt_bias), the output norm and projection.
Count GatedDeltaNet(const ModelShape& s) {
  const Count e = static_cast<Count>(s.emb_dim);
  const Count keys = static_cast<Count>(s.gdn_num_key_heads * s.gdn_key_head_dim);
  const Count values = static_cast<Count>(s.gdn_num_value_heads * s.gdn_value_head_dim);
  const Count value_heads = static_cast<Count>(s.gdn_num_value_heads);
  Count projections = e * (2 * keys + 2 * values) + e * 2 * value_heads;
  Count convolution = (2 * keys + values) * static_cast<Count>(s.gdn_conv_kernel_dim);
  Count per_head = 2 * value_heads;
  Count norm = static_cast<Count>(s.gdn_value_head_dim);
  return projections + convolution + per_head + norm + values * e;
}

}  // namespace

bool IsMixtureOfExperts(const ModelShape& shape) { return shape.num_experts > 1; }

ParameterCount CountParameters(const ModelShape& s) {
  const BlockTraits traits = TraitsOf(s);
  const Count e = static_cast<Count>(s.emb_dim);
  const Count vocab = static_cast<Count>(s.vocab_size);
  // The final norm (GPT-3's LayerNorm with a bias too), and GPT-3's learned positions.
  Count embeddings = vocab * e + (s.logits_via_embedding ? 0 : e * vocab) + e * (traits.gpt3 ? 2 : 1);
  if (s.trainable_position_size > 0) embeddings += static_cast<Count>(s.trainable_position_size) * e;
  // Gemma 4 small's per-layer inputs: their own embedding and a projection of the token's
  // embedding, both as wide as every layer's slice together, and a norm.
  const Count per_layer = static_cast<Count>(s.hidden_size_per_layer_input);
  if (s.vocab_size_per_layer_input > 0 && per_layer > 0) {
    const Count all_layers = static_cast<Count>(s.num_decoder_layers) * per_layer;
    embeddings += static_cast<Count>(s.vocab_size_per_layer_input) * all_layers + e * all_layers + per_layer;
  }

  ParameterCount count{embeddings, embeddings};
  const long layers = s.num_decoder_layers * traits.sublayers;
  const long cycle = s.inhomogeneous_layer_cycle_interval > 0 ? s.inhomogeneous_layer_cycle_interval : 1;
  const bool linear_attention = s.decoder_block == DecoderBlock::kQwen3Next || s.decoder_block == DecoderBlock::kQwen35;
  for (long layer = 0; layer < layers; ++layer) {
    Count norms = traits.norms_per_layer * e * (traits.gpt3 ? 2 : 1);
    const bool global = s.global_attention_every > 0 && (layer + 1) % s.global_attention_every == 0;
    const bool kv_from_earlier = s.num_kv_shared_layers > 0 && layer >= layers - s.num_kv_shared_layers;
    Count attention = 0;
    if (linear_attention && (layer + 1) % cycle != 0) {
      attention = GatedDeltaNet(s);
    } else if (global) {
      attention =
          Attention(s, traits, s.global_num_kv_heads > 0 ? s.global_num_kv_heads : s.num_kv_heads,
                    s.global_head_dim > 0 ? s.global_head_dim : s.head_dim, s.share_kv_projections, kv_from_earlier);
    } else {
      // Gemma 4 shares keys and values only in its global layers.
      attention = Attention(s, traits, s.num_kv_heads, s.head_dim,
                            s.share_kv_projections && s.global_attention_every == 0, kv_from_earlier);
    }
    if (traits.gemma4) norms += 1;                      // a per-layer output scale
    if (per_layer > 0) norms += 2 * e * per_layer + e;  // the per-layer input's gate, projection and norm
    bool moe = IsMixtureOfExperts(s) && layer >= s.first_num_dense_layers &&
               (s.interleave_moe_layer_step <= 1 || (layer + 1) % s.interleave_moe_layer_step == 0);
    const Count mlp_dim = static_cast<Count>(s.mlp_dim) * (kv_from_earlier && s.use_double_wide_mlp ? 2 : 1);
    LayerCount ffn = moe ? MixtureOfExperts(s, traits) : LayerCount{Mlp(s, mlp_dim, s.mlp_bias || traits.gpt3), 0};
    if (!moe) ffn.active = ffn.total;
    count.total += norms + attention + ffn.total;
    count.active += norms + attention + ffn.active;
  }
  return count;
}

std::string_view DecoderBlockName(DecoderBlock block) {
  switch (block) {
    case DecoderBlock::kLlama2:
      return "llama2";
    case DecoderBlock::kMistral:
      return "mistral";
    case DecoderBlock::kMixtral:
      return "mixtral";
    case DecoderBlock::kDeepSeek:
      return "deepseek";
    case DecoderBlock::kDeepSeek4:
      return "deepseek4";
    case DecoderBlock::kGemma:
      return "gemma";
    case DecoderBlock::kGemma2:
      return "gemma2";
    case DecoderBlock::kGemma3:
      return "gemma3";
    case DecoderBlock::kGemma4:
      return "gemma4";
    case DecoderBlock::kGemma4Small:
      return "gemma4_small";
    case DecoderBlock::kQwen2:
      return "qwen2";
    case DecoderBlock::kQwen3:
      return "qwen3";
    case DecoderBlock::kQwen3Moe:
      return "qwen3_moe";
    case DecoderBlock::kQwen3CustomMoe:
      return "qwen3_custom_moe";
    case DecoderBlock::kQwen3Next:
      return "qwen3_next";
    case DecoderBlock::kQwen35:
      return "qwen3_5";
    case DecoderBlock::kGpt3:
      return "gpt3";
    case DecoderBlock::kGptOss:
      return "gpt_oss";
    case DecoderBlock::kLlama4:
      return "llama4";
    case DecoderBlock::kOlmo3:
      return "olmo3";
    case DecoderBlock::kEnvy:
      return "envy";
  }
  return "llama2";
}

}  // namespace tputrain::catalog
