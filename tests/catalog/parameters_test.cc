#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "tputrain/catalog/models.h"

using tputrain::catalog::FindModel;
using tputrain::catalog::Model;
using tputrain::catalog::Models;

namespace {

// A size its makers published. Where a publisher counts the active parameters without the input
// embedding table (a token reads one row of it), `active_without_embedding` says so and the
// check leaves the table out too.
struct Published {
  const char* model;
  double total;   // billions
  double active;  // billions; 0: dense, or not published
  bool active_without_embedding;
  const char* source;
};

// clang-format off
const Published kPublished[] = {
    {"llama2-7b", 6.74, 0, false, "Hugging Face meta-llama/Llama-2-7b-hf: 6.74B"},
    {"llama2-13b", 13.0, 0, false, "Hugging Face meta-llama/Llama-2-13b-hf: 13.0B"},
    {"llama2-70b", 69.0, 0, false, "Hugging Face meta-llama/Llama-2-70b-hf: 69.0B"},
    {"llama3-8b", 8.03, 0, false, "Hugging Face meta-llama/Meta-Llama-3-8B: 8.03B (Meta: 8B)"},
    {"llama3-70b", 70.6, 0, false, "Hugging Face meta-llama/Meta-Llama-3-70B: 70.6B"},
    {"llama3.1-8b", 8.03, 0, false, "Hugging Face meta-llama/Llama-3.1-8B: 8.03B"},
    {"llama3.1-70b", 70.6, 0, false, "Hugging Face meta-llama/Llama-3.1-70B: 70.6B"},
    {"llama3.3-70b", 70.6, 0, false, "Hugging Face meta-llama/Llama-3.3-70B-Instruct: 70.6B"},
    {"llama3.1-405b", 405, 0, false, "Meta, Llama 3.1 announcement: 405B"},
    {"llama4-17b-16e", 109, 17, false, "Meta, Llama 4 Scout: 17B active, 109B total"},
    {"llama4-17b-128e", 400, 17, false, "Meta, Llama 4 Maverick: 17B active, 400B total"},
    {"mistral-7b", 7.3, 0, false, "Mistral AI, Mistral 7B announcement: 7.3B"},
    {"mixtral-8x7b", 46.7, 12.9, false, "Mistral AI, Mixtral 8x7B announcement: 46.7B total, 12.9B per token"},
    {"mixtral-8x22b", 141, 39, false, "Mistral AI, Mixtral 8x22B announcement: 141B total, 39B active"},
    {"gemma-2b", 2.506, 0, false, "Gemma technical report, table 1: 524M embedding + 1,982M other"},
    {"gemma-7b", 8.538, 0, false, "Gemma technical report, table 1: 787M embedding + 7,751M other"},
    {"gemma2-2b", 2.615, 0, false, "Gemma 2 technical report, table 1: 590M embedding + 2,025M other"},
    {"gemma2-9b", 9.242, 0, false, "Gemma 2 technical report, table 1: 918M embedding + 8,324M other"},
    {"gemma2-27b", 27.228, 0, false, "Gemma 2 technical report, table 1: 1,180M embedding + 26,047M other"},
    // Gemma 3's tables list the 417M vision encoder apart; MaxText builds it only with use_multimodal.
    {"gemma3-4b", 3.884, 0, false, "Gemma 3 technical report, table 1: 675M embedding + 3,209M other"},
    {"gemma3-12b", 11.771, 0, false, "Gemma 3 technical report, table 1: 1,012M embedding + 10,759M other"},
    {"gemma3-27b", 27.016, 0, false, "Gemma 3 technical report, table 1: 1,416M embedding + 25,600M other"},
    {"qwen2.5-1.5b", 1.54, 0, false, "Qwen2.5-1.5B model card: 1.54B"},
    {"qwen2.5-7b", 7.61, 0, false, "Qwen2.5-7B model card: 7.61B"},
    {"qwen2.5-14b", 14.7, 0, false, "Qwen2.5-14B model card: 14.7B"},
    {"qwen3-0.6b", 0.6, 0, false, "Qwen3-0.6B model card: 0.6B"},
    {"qwen3-1.7b", 1.7, 0, false, "Qwen3-1.7B model card: 1.7B"},
    {"qwen3-4b", 4.0, 0, false, "Qwen3-4B model card: 4.0B"},
    {"qwen3-8b", 8.2, 0, false, "Qwen3-8B model card: 8.2B"},
    {"qwen3-14b", 14.8, 0, false, "Qwen3-14B model card: 14.8B"},
    {"qwen3-32b", 32.8, 0, false, "Qwen3-32B model card: 32.8B"},
    {"qwen3-30b-a3b", 30.5, 3.3, false, "Qwen3-30B-A3B model card: 30.5B total, 3.3B activated"},
    {"qwen3-235b-a22b", 235, 22, false, "Qwen3-235B-A22B model card: 235B total, 22B activated"},
    {"qwen3-480b-a35b", 480, 35, false, "Qwen3-Coder-480B-A35B model card: 480B total, 35B activated"},
    {"qwen3-next-80b-a3b", 80, 0, false, "Qwen3-Next-80B-A3B model card: 80B total (its 3B activated is rounded)"},
    {"deepseek2-16b", 15.7, 0, false, "DeepSeek-V2 paper: V2-Lite 15.7B total (its 2.4B activated is rounded)"},
    {"deepseek2-236b", 236, 21, false, "DeepSeek-V2 paper: 236B total, 21B activated"},
    {"deepseek3-671b", 671, 37, false, "DeepSeek-V3 technical report: 671B total, 37B activated"},
    {"kimi-k2-1t", 1040, 0, false, "Kimi K2 technical report: 1.04T total"},
    {"gpt-oss-20b", 20.91, 3.61, true, "OpenAI gpt-oss model card: 20.91B total, 3.61B active (embeddings apart)"},
    {"gpt-oss-120b", 116.83, 5.13, true, "OpenAI gpt-oss model card: 116.83B total, 5.13B active (embeddings apart)"},
    {"gpt3-175b", 175, 0, false, "Brown et al. 2020, Language Models are Few-Shot Learners, table 2.1: 175.0B"},
};
// clang-format on

double Billions(double count) { return count / 1e9; }

}  // namespace

TEST_CASE("every model with a published size is within 2% of it, total and active") {
  for (const auto& published : kPublished) {
    auto model = FindModel(published.model);
    REQUIRE(model);
    INFO(published.model << ": computed " << Billions(model->parameters) << "B total, "
                         << Billions(model->active_parameters) << "B active; " << published.source);
    CHECK(Billions(model->parameters) == Approx(published.total).epsilon(0.02));
    if (published.active > 0) {
      double active = model->active_parameters;
      if (published.active_without_embedding) {
        active -= static_cast<double>(model->shape->vocab_size) * static_cast<double>(model->shape->emb_dim);
      }
      CHECK(model->mixture_of_experts());
      CHECK(Billions(active) == Approx(published.active).epsilon(0.02));
    }
  }
}

TEST_CASE("the counts are MaxText's exact arithmetic for the plain shapes") {
  // Llama 3 8B, weight by weight: embedding and output layer 2 × 128256 × 4096; per layer the
  // query and output 2 × 4096 × 4096, key and value 2 × 4096 × 1024, the gated MLP 3 × 4096 ×
  // 14336, two norms of 4096; and the final norm.
  const double layer = 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336 + 2 * 4096;
  const double expected = 2.0 * 128256 * 4096 + 32 * layer + 4096;
  auto llama = FindModel("llama3-8b");
  REQUIRE(llama);
  CHECK(llama->parameters == expected);
  CHECK(llama->active_parameters == expected);
  CHECK_FALSE(llama->mixture_of_experts());
}

TEST_CASE("a mixture of experts counts every expert in the total and the routed ones in the active") {
  auto mixtral = FindModel("mixtral-8x7b");
  REQUIRE(mixtral);
  REQUIRE(mixtral->shape);
  const auto& s = *mixtral->shape;
  const double expert = 3.0 * static_cast<double>(s.emb_dim) * static_cast<double>(s.moe_mlp_dim);
  const double idle =
      static_cast<double>(s.num_experts - s.num_experts_per_tok) * expert * static_cast<double>(s.num_decoder_layers);
  CHECK(mixtral->parameters - mixtral->active_parameters == Approx(idle));
}

TEST_CASE("every generated model has a sound count") {
  REQUIRE(Models().size() > 80);
  for (const auto& model : Models()) {
    INFO(model.name);
    CHECK(std::isfinite(model.parameters));
    CHECK(model.parameters > 0);
    CHECK(model.active_parameters > 0);
    CHECK(model.active_parameters <= model.parameters);
    CHECK(model.mixture_of_experts() == (model.shape && model.shape->num_experts > 1));
  }
}

TEST_CASE("the model table is the MaxText that scripts/peers/maxtext.sh pins") {
  std::ifstream script(std::string(TPUTRAIN_SOURCE_DIR) + "/scripts/peers/maxtext.sh");
  REQUIRE(script);
  std::stringstream text;
  text << script.rdbuf();
  std::smatch pin;
  const std::string body = text.str();
  REQUIRE(std::regex_search(body, pin, std::regex(R"(maxtext\[tpu\]==([0-9.]+))")));
  CHECK(pin[1].str() == tputrain::catalog::MaxTextVersion());
  CHECK_THAT(std::string(tputrain::catalog::MaxTextModelsSource()),
             Catch::Contains("MaxText " + pin[1].str()) && Catch::Contains("scripts/generate-model-table.py"));
}
