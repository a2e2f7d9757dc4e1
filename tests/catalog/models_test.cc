#include <catch2/catch.hpp>

#include "tputrain/catalog/models.h"

using tputrain::catalog::FindModel;
using tputrain::catalog::FindModelByRepo;
using tputrain::catalog::WorkloadMode;

TEST_CASE("the seed workloads keep their presets' defaults") {
  auto llama = FindModel("llama3-8b");
  REQUIRE(llama);
  CHECK(llama->parameters == Approx(8.03e9).epsilon(1e-3));
  CHECK(llama->default_mode == WorkloadMode::kTrain);
  CHECK(llama->max_target_length == 4096);  // seed 001's job
  for (const char* name : {"llama3.1-405b", "llama2-70b", "saxml-175b-test"}) {
    auto preset = FindModel(name);
    REQUIRE(preset);
    CHECK(preset->default_mode == WorkloadMode::kServe);
  }
  CHECK(tputrain::catalog::ModelPresets().size() == 5);
}

TEST_CASE("every MaxText model is known by its model_name, with MaxText's name for it") {
  for (const char* name : {"llama3.3-70b", "qwen3-32b", "gemma3-27b", "mixtral-8x22b", "deepseek3-671b", "kimi-k2-1t",
                           "gpt-oss-120b", "llama3.1-8b-Instruct", "olmo3-32b"}) {
    auto model = FindModel(name);
    REQUIRE(model);
    CHECK(model->maxtext_model_name == name);
    CHECK(model->origin == tputrain::catalog::ModelOrigin::kMaxText);
    CHECK_THAT(model->origin_detail, Catch::StartsWith("MaxText 0.2.5 configs/models/"));
  }
  // -Instruct names use the base model's config, as MaxText's pyconfig does.
  CHECK_THAT(FindModel("llama3.1-70b-Instruct")->origin_detail, Catch::EndsWith("llama3.1-70b.yml"));
  // Case is forgiven; MaxText is given its own spelling.
  CHECK(FindModel("Qwen3-32B")->maxtext_model_name == "qwen3-32b");
  // A config file MaxText's model_name refuses is not offered.
  CHECK_FALSE(FindModel("llama3-405b"));
}

TEST_CASE("an unknown model names the flag and the nearest names") {
  auto missing = FindModel("qwen3-23b");
  REQUIRE_FALSE(missing);
  CHECK(tputrain::core::IsUsageError(missing.error()));
  CHECK_THAT(missing.error().message, Catch::StartsWith("--model: unknown model 'qwen3-23b'; nearest: ") &&
                                          Catch::Contains("qwen3-32b") && Catch::Contains("tputrain models"));
  CHECK(tputrain::catalog::NearestModelNames("lama3.3-70b", 1) == std::vector<std::string>{"llama3.3-70b"});
  CHECK(tputrain::catalog::NearestModelNames("mixtral", 2).front().rfind("mixtral-8x", 0) == 0);
}

TEST_CASE("a Hugging Face repo id finds the model it is") {
  struct Case {
    const char* repo;
    const char* model;
  };
  for (const auto& c : std::vector<Case>{{"Qwen/Qwen3-32B", "qwen3-32b"},
                                         {"meta-llama/Llama-3.3-70B-Instruct", "llama3.3-70b"},
                                         {"meta-llama/Meta-Llama-3-8B-Instruct", "llama3-8b"},
                                         {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
                                         {"google/gemma-3-27b-it", "gemma3-27b"},
                                         {"deepseek-ai/DeepSeek-V3", "deepseek3-671b"},
                                         {"Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-480b-a35b"},
                                         {"qwen/qwen2.5-7b-instruct", "qwen2.5-7b"}}) {
    auto match = FindModelByRepo(c.repo);
    REQUIRE(match);
    INFO(c.repo << ": " << match->how);
    CHECK(match->model.name.rfind(c.model, 0) == 0);
  }
  CHECK_FALSE(FindModelByRepo("someone/my-finetune"));
  CHECK_FALSE(FindModelByRepo("meta-llama/Llama-4-Scout-17B-16E-Instruct"));  // not by that name: --hf-config
}
