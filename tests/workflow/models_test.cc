#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tputrain/workflow/models.h"

namespace fs = std::filesystem;
using tputrain::workflow::ChooseModel;
using tputrain::workflow::ModelChoice;

namespace {

struct TempDir {
  TempDir() {
    char name[] = "/tmp/tputrain-models-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path Write(const std::string& relative, const std::string& text) const {
    fs::path file = path / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  fs::path path;
};

// Mixtral 8x7B's config.json, the fields that fix its size.
constexpr const char* kMixtral = R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "torch_dtype": "bfloat16"})";

std::string UsageError(const ModelChoice& choice) {
  auto model = ChooseModel(choice);
  REQUIRE_FALSE(model);
  CHECK(tputrain::core::IsUsageError(model.error()));
  CHECK(model.error().message.find('\n') == std::string::npos);
  return model.error().message;
}

}  // namespace

TEST_CASE("a model is named one way: by name, by size, or by its config.json") {
  TempDir dir;
  auto config = dir.Write("Mixtral-8x7B-v0.1/config.json", kMixtral);
  auto by_name = ChooseModel({.name = "mixtral-8x7b"});
  REQUIRE(by_name);
  auto by_config = ChooseModel({.hf_config = config.string()});
  REQUIRE(by_config);
  CHECK(by_config->name == "Mixtral-8x7B-v0.1");  // the checkpoint's directory
  CHECK(by_config->parameters == by_name->parameters);
  // The checkpoint's directory stands for its config.json.
  auto by_directory = ChooseModel({.hf_config = config.parent_path().string()});
  REQUIRE(by_directory);
  CHECK(by_directory->parameters == by_name->parameters);
  auto by_size = ChooseModel({.parameters = "47b", .active = "13b"});
  REQUIRE(by_size);
  CHECK(by_size->mixture_of_experts());
  CHECK(by_size->name == "47B parameters");
}

TEST_CASE("naming a model badly is one usage line naming the flag") {
  TempDir dir;
  CHECK_THAT(UsageError({}), Catch::StartsWith("--model: required"));
  CHECK_THAT(UsageError({.name = "qwen3-32b", .parameters = "32b"}), Catch::StartsWith("--params: give one of"));
  CHECK_THAT(UsageError({.name = "qwen3-32b", .hf_config = "x"}), Catch::StartsWith("--hf-config: give one of"));
  CHECK_THAT(UsageError({.name = "qwen3-32b", .active = "3b"}),
             Catch::StartsWith("--active-params: only with --params"));
  CHECK_THAT(UsageError({.parameters = "70q"}), Catch::StartsWith("--params: expected a parameter count"));
  CHECK_THAT(UsageError({.name = "qwen3-32x"}), Catch::StartsWith("--model: unknown model 'qwen3-32x'"));
  CHECK_THAT(UsageError({.hf_config = (dir.path / "missing.json").string()}),
             Catch::StartsWith("--hf-config: cannot read"));
  CHECK_THAT(UsageError({.hf_config = dir.path.string()}),
             Catch::StartsWith("--hf-config: cannot read"));  // no config.json
  auto big = dir.Write("big.json", "{\"pad\": \"" + std::string(2 * 1024 * 1024, 'x') + "\"}");
  CHECK_THAT(UsageError({.hf_config = big.string()}),
             Catch::StartsWith("--hf-config: ") && Catch::Contains("larger than 1 MiB"));
  auto malformed = dir.Write("malformed.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": )");
  CHECK_THAT(UsageError({.hf_config = malformed.string()}),
             Catch::StartsWith("--hf-config ") && Catch::Contains("not valid JSON"));
  auto latin1 = dir.Write("latin1.json", "{\"architectures\": [\"Llama\xe9\"]}");
  CHECK_THAT(UsageError({.hf_config = latin1.string()}),
             Catch::StartsWith("--hf-config ") && Catch::Contains("not valid JSON"));
  auto deep = dir.Write("deep.json", std::string(100, '[') + std::string(100, ']'));
  CHECK_THAT(UsageError({.hf_config = deep.string()}), Catch::StartsWith("--hf-config ") && Catch::Contains("deeper"));
  auto mamba = dir.Write("mamba.json", R"({"architectures": ["MambaForCausalLM"]})");
  CHECK_THAT(UsageError({.hf_config = mamba.string()}),
             Catch::StartsWith("--hf-config: architecture 'MambaForCausalLM'"));
}

TEST_CASE("tputrain models: every model, with where it trains and serves by default") {
  auto listings = tputrain::workflow::ListModels();
  REQUIRE(listings.size() == tputrain::catalog::Models().size());
  for (const auto& listing : listings) {
    INFO(listing.model.name);
    REQUIRE(listing.serve);
    CHECK(listing.serve->mode == tputrain::catalog::WorkloadMode::kServe);
    // Training the trillion-parameter models needs more than any slice holds at 32 bytes per parameter.
    if (listing.model.parameters < 2e12) CHECK(listing.train);
  }
}
