#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/hf_config.h"

using nlohmann::json;
using tputrain::catalog::FindModel;
using tputrain::catalog::ModelOfHfConfig;

namespace {

// The fields of each checkpoint's config.json that fix its size (the published values; a real
// file holds more, which is read past).
json Llama3_8B() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"hidden_size", 4096},
          {"intermediate_size", 14336},
          {"num_attention_heads", 32},
          {"num_hidden_layers", 32},
          {"num_key_value_heads", 8},
          {"vocab_size", 128256},
          {"rope_theta", 500000.0},
          {"tie_word_embeddings", false}};
}

json Mixtral8x7B() {
  return {{"architectures", {"MixtralForCausalLM"}},
          {"hidden_size", 4096},
          {"intermediate_size", 14336},
          {"num_attention_heads", 32},
          {"num_hidden_layers", 32},
          {"num_key_value_heads", 8},
          {"num_local_experts", 8},
          {"num_experts_per_tok", 2},
          {"vocab_size", 32000}};
}

json Qwen3_30B_A3B() {
  return {{"architectures", {"Qwen3MoeForCausalLM"}},
          {"hidden_size", 2048},
          {"intermediate_size", 6144},
          {"moe_intermediate_size", 768},
          {"num_attention_heads", 32},
          {"num_hidden_layers", 48},
          {"num_key_value_heads", 4},
          {"head_dim", 128},
          {"num_experts", 128},
          {"num_experts_per_tok", 8},
          {"decoder_sparse_step", 1},
          {"mlp_only_layers", json::array()},
          {"tie_word_embeddings", false},
          {"vocab_size", 151936}};
}

json DeepSeekV3() {
  return {{"architectures", {"DeepseekV3ForCausalLM"}},
          {"hidden_size", 7168},
          {"intermediate_size", 18432},
          {"moe_intermediate_size", 2048},
          {"num_attention_heads", 128},
          {"num_hidden_layers", 61},
          {"num_key_value_heads", 128},
          {"n_routed_experts", 256},
          {"n_shared_experts", 1},
          {"num_experts_per_tok", 8},
          {"first_k_dense_replace", 3},
          {"moe_layer_freq", 1},
          {"q_lora_rank", 1536},
          {"kv_lora_rank", 512},
          {"qk_nope_head_dim", 128},
          {"qk_rope_head_dim", 64},
          {"v_head_dim", 128},
          {"vocab_size", 129280}};
}

json Gemma2_9B() {
  return {{"architectures", {"Gemma2ForCausalLM"}},
          {"hidden_size", 3584},
          {"intermediate_size", 14336},
          {"num_attention_heads", 16},
          {"num_hidden_layers", 42},
          {"num_key_value_heads", 8},
          {"head_dim", 256},
          {"vocab_size", 256000}};
}

json Gemma3_27B() {
  return {{"architectures", {"Gemma3ForConditionalGeneration"}},
          {"text_config",
           {{"hidden_size", 5376},
            {"intermediate_size", 21504},
            {"num_attention_heads", 32},
            {"num_hidden_layers", 62},
            {"num_key_value_heads", 16},
            {"head_dim", 128},
            {"vocab_size", 262208}}},
          {"vision_config", {{"hidden_size", 1152}}}};
}

json Without(json config, const char* key) {
  config.erase(key);
  return config;
}

json With(json config, const char* key, json value) {
  config[key] = std::move(value);
  return config;
}

}  // namespace

TEST_CASE("a config.json counts as MaxText's config of the same model does") {
  struct Case {
    json config;
    const char* maxtext;
  };
  for (const auto& c : std::vector<Case>{{Llama3_8B(), "llama3-8b"},
                                         {Mixtral8x7B(), "mixtral-8x7b"},
                                         {Qwen3_30B_A3B(), "qwen3-30b-a3b"},
                                         {DeepSeekV3(), "deepseek3-671b"}}) {
    auto model = ModelOfHfConfig(c.config, "checkpoint");
    REQUIRE(model);
    auto table = FindModel(c.maxtext);
    REQUIRE(table);
    INFO(c.maxtext);
    CHECK(model->parameters == table->parameters);
    CHECK(model->active_parameters == table->active_parameters);
    CHECK(model->name == "checkpoint");
    CHECK(model->origin == tputrain::catalog::ModelOrigin::kHuggingFaceConfig);
    CHECK(model->maxtext_model_name.empty());
  }
}

TEST_CASE("Gemma's configs: tied embeddings by default, Gemma 2's layer pairs, Gemma 3's text_config") {
  auto gemma2 = ModelOfHfConfig(Gemma2_9B(), "gemma-2-9b");
  REQUIRE(gemma2);
  CHECK(gemma2->shape->num_decoder_layers == 21);  // MaxText's gemma2-9b: 21 layers of two
  CHECK(gemma2->shape->logits_via_embedding);
  CHECK(gemma2->parameters == Approx(9.24e9).epsilon(0.01));
  auto gemma3 = ModelOfHfConfig(Gemma3_27B(), "gemma-3-27b-it");
  REQUIRE(gemma3);
  CHECK(gemma3->parameters == Approx(27.0e9).epsilon(0.01));
  CHECK_THAT(gemma3->origin_detail, Catch::Contains("Gemma3ForConditionalGeneration"));
}

TEST_CASE("a DeepSeek V2-Lite config (queries not compressed: q_lora_rank null) reads") {
  json lite = DeepSeekV3();
  lite["architectures"] = {"DeepseekV2ForCausalLM"};
  lite.update({{"hidden_size", 2048},
               {"intermediate_size", 10944},
               {"moe_intermediate_size", 1408},
               {"num_attention_heads", 16},
               {"num_hidden_layers", 27},
               {"num_key_value_heads", 16},
               {"n_routed_experts", 64},
               {"n_shared_experts", 2},
               {"num_experts_per_tok", 6},
               {"first_k_dense_replace", 1},
               {"q_lora_rank", nullptr},
               {"vocab_size", 102400}});
  auto model = ModelOfHfConfig(lite, "DeepSeek-V2-Lite");
  REQUIRE(model);
  auto table = FindModel("deepseek2-16b");
  REQUIRE(table);
  CHECK(model->parameters == table->parameters);
}

TEST_CASE("a config.json that cannot be sized is one usage line naming --hf-config and the field") {
  struct Case {
    json config;
    const char* expected;
  };
  for (const auto& c : std::vector<Case>{
           {json::array(), "expected a JSON object"},
           {With(Llama3_8B(), "architectures", {"MambaForCausalLM"}), "'MambaForCausalLM' is not one"},
           {Without(Without(Llama3_8B(), "architectures"), "model_type"), "(none"},
           {Without(Llama3_8B(), "hidden_size"), "'hidden_size' is missing"},
           {With(Llama3_8B(), "hidden_size", -4096), "'hidden_size' must be a whole number"},
           {With(Llama3_8B(), "hidden_size", 4096.5), "'hidden_size' must be a whole number"},
           {With(Llama3_8B(), "num_hidden_layers", "32"), "'num_hidden_layers' must be a whole number"},
           {With(Llama3_8B(), "vocab_size", 1e12), "'vocab_size' must be a whole number"},
           {With(Llama3_8B(), "num_key_value_heads", 5), "not a multiple"},
           {With(Llama3_8B(), "tie_word_embeddings", "yes"), "'tie_word_embeddings' must be true or false"},
           {With(Mixtral8x7B(), "num_experts_per_tok", 9), "more than the experts"},
           {Without(Mixtral8x7B(), "num_local_experts"), "'num_local_experts' is missing"},
           {With(Qwen3_30B_A3B(), "mlp_only_layers", {0, 1}), "every layer has experts"},
           {Without(Gemma3_27B(), "text_config"), "'text_config' is missing"},
       }) {
    auto model = ModelOfHfConfig(c.config, "x");
    REQUIRE_FALSE(model);
    INFO(model.error().message);
    CHECK(tputrain::core::IsUsageError(model.error()));
    CHECK_THAT(model.error().message, Catch::StartsWith("--hf-config: ") && Catch::Contains(c.expected));
    CHECK(model.error().message.find('\n') == std::string::npos);
  }
}
