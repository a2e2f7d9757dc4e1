#pragma once

#include <string>
#include <string_view>

// A decoder's shape, named as MaxText's configs name it (configs/base.yml and
// configs/models/*.yml), and the parameter count that follows from it.
namespace tputrain::catalog {

// MaxText's decoder_block: which layer code builds the model (common/common_types.py).
enum class DecoderBlock {
  kLlama2,
  kMistral,
  kMixtral,
  kDeepSeek,
  kDeepSeek4,
  kGemma,
  kGemma2,
  kGemma3,
  kGemma4,
  kGemma4Small,
  kQwen2,
  kQwen3,
  kQwen3Moe,
  kQwen3CustomMoe,
  kQwen3Next,
  kQwen35,
  kGpt3,
  kGptOss,
  kLlama4,
  kOlmo3,
  kEnvy,
};
std::string_view DecoderBlockName(DecoderBlock block);  // MaxText's spelling: "llama2", "qwen3_moe"

// MaxText's attention_type.
enum class AttentionType { kGlobal, kLocalSliding, kChunk, kFull, kMla, kCompressed };

// The dimensions that fix a model's size. Field names are MaxText's keys without `base_`; the
// defaults are MaxText's base.yml's, for shapes built by hand (tests, a Hugging Face config).
struct ModelShape {
  DecoderBlock decoder_block = DecoderBlock::kLlama2;
  long emb_dim = 0;
  long num_decoder_layers = 0;
  long num_query_heads = 0;
  long num_kv_heads = 0;
  long head_dim = 0;
  long mlp_dim = 0;  // the dense MLP's hidden size
  long vocab_size = 0;
  long mlp_activations = 2;           // 2: a gated MLP (["silu", "linear"]); 1: a plain one (["gelu"])
  bool logits_via_embedding = false;  // the output layer reuses the embedding (tied weights)
  AttentionType attention_type = AttentionType::kGlobal;
  bool attention_bias = false;
  bool mlp_bias = false;
  // Mixture of experts: num_experts > 1.
  long num_experts = 1;
  long num_experts_per_tok = 1;
  long moe_mlp_dim = -1;  // each expert's hidden size
  long shared_experts = 0;
  bool routed_bias = false;            // a bias on the router's logits
  long first_num_dense_layers = 0;     // DeepSeek: the first layers are dense
  long interleave_moe_layer_step = 1;  // Llama 4: every Nth layer is a mixture of experts
  // Qwen3 custom MoE: attention projects out to this narrower width, where the experts work;
  // a projection brings it back to emb_dim. -1: emb_dim.
  long attention_output_dim = -1;
  long moe_expert_input_dim = -1;
  // Multi-head latent attention (attention_type mla).
  long q_lora_rank = 0;
  long kv_lora_rank = 512;
  long qk_nope_head_dim = 128;
  long qk_rope_head_dim = 64;
  long v_head_dim = 128;
  bool use_indexer = false;  // DeepSeek V3.2's sparse attention indexer
  long indexer_n_heads = 64;
  long indexer_head_dim = 128;
  // Layers repeat in cycles of this many; Qwen3-Next and Qwen 3.5 end each cycle with full
  // attention, the others are Gated DeltaNet (linear attention) layers.
  long inhomogeneous_layer_cycle_interval = 1;
  long gdn_num_key_heads = 16;
  long gdn_num_value_heads = 32;
  long gdn_key_head_dim = 128;
  long gdn_value_head_dim = 128;
  long gdn_conv_kernel_dim = 4;
  // Gemma 4: global layers' own head size and KV heads; keys doubling as values (global layers).
  long global_head_dim = 0;
  long global_num_kv_heads = 0;
  bool share_kv_projections = false;
  long global_attention_every = 0;  // Gemma 4: every Nth layer attends globally (its model code's pattern)
  // Gemma 4 small: a second embedding feeding every layer; the last layers reuse earlier layers'
  // keys and values (no projections of their own) and have an MLP twice as wide.
  long hidden_size_per_layer_input = 0;
  long vocab_size_per_layer_input = 0;
  long num_kv_shared_layers = 0;
  bool use_double_wide_mlp = false;
  long trainable_position_size = -1;  // GPT-3: learned position embeddings, when positive
  long max_target_length = 2048;      // the sequence length the config sets (base.yml: 2048)
};

struct ParameterCount {
  double total = 0;
  double active = 0;  // per token: the router's choice of experts, plus everything else
};

// Every weight of the decoder (embeddings, attention, MLPs or experts, norms, biases), as MaxText
// builds it for this shape. Multimodal encoders (vision, audio) are not counted: MaxText builds
// them only with use_multimodal=true.
ParameterCount CountParameters(const ModelShape& shape);

bool IsMixtureOfExperts(const ModelShape& shape);

}  // namespace tputrain::catalog
