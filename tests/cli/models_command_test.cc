// Any model MaxText trains or vLLM serves: `plan` by name, by size and by config.json,
// `tputrain models`, and `submit --model` for a MaxText model, run in-process.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::TputrainBinary;

namespace {

tputrain::testing::ProcessResult Tputrain(std::vector<std::string> args) {
  args.insert(args.begin(), TputrainBinary());
  // No location: plan prices nothing and sends nothing; no cluster at hand (no KUBECONFIG, no
  // ~/.kube/config), whatever the test runner's: serve up --dry-run only shows the objects.
  return RunInProcess({.argv = args,
                       .env = {{"CLOUDSDK_COMPUTE_ZONE", std::nullopt},
                               {"CLOUDSDK_COMPUTE_REGION", std::nullopt},
                               {"TPUTRAIN_LOCATION", std::nullopt},
                               {"CLOUDSDK_CONFIG", "/nonexistent"},
                               {"KUBECONFIG", std::nullopt},
                               {"HOME", "/nonexistent"}}});
}

struct ConfigDir {
  ConfigDir() {
    char name[] = "/tmp/tputrain-hf-config-XXXXXX";
    path = mkdtemp(name);
  }
  ~ConfigDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string Write(const std::string& checkpoint, const std::string& text) const {
    std::filesystem::create_directories(path / checkpoint);
    const auto file = path / checkpoint / "config.json";
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }
  std::filesystem::path path;
};

// The size-fixing fields of two checkpoints' config.json (published values).
constexpr const char* kLlama3_8B = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "vocab_size": 128256, "rope_theta": 500000.0, "tie_word_embeddings": false})";
constexpr const char* kMixtral8x7B = R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000})";

}  // namespace

TEST_CASE("plan --model qwen3-32b: a MaxText model by name, its slice and why") {
  auto result = Tputrain({"plan", "--model", "qwen3-32b"});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("qwen3-32b (32.76 B parameters, train)"));
  CHECK_THAT(result.out, Catch::Contains("MaxText 0.2.5 configs/models/qwen3-32b.yml"));
  CHECK_THAT(result.out, Catch::Contains("v6e-64 (64 chips, topology 8x8)"));
  CHECK_THAT(result.out, Catch::Contains("ici_fsdp_parallelism=16 ici_tensor_parallelism=4"));
  CHECK_THAT(result.out, Catch::Contains("why: 32.76 B parameters × 16 bytes"));
  auto serve = Tputrain({"plan", "--model", "qwen3-32b", "--mode", "serve", "--format", "json"});
  REQUIRE(serve.exit_code == 0);
  auto json = nlohmann::json::parse(serve.out);
  CHECK(json["accelerator_type"] == "v6e-4");
  CHECK(json["origin"] == "maxtext");
  CHECK(json["mixture_of_experts"] == false);
}

TEST_CASE("plan --params 70b (and --active-params): a model of that size") {
  auto result = Tputrain({"plan", "--params", "70b", "--mode", "serve"});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("70B parameters (serve)"));
  CHECK_THAT(result.out, Catch::Contains("v6e-8 (8 chips, topology 2x4)"));
  CHECK_THAT(result.out, Catch::Contains("why: 70 B parameters × 2 bytes (bf16 weights) = 140 GB"));
  auto moe = Tputrain({"plan", "--params", "1t", "--active-params", "32b", "--mode", "serve", "--format", "json"});
  REQUIRE(moe.exit_code == 0);
  auto json = nlohmann::json::parse(moe.out);
  CHECK(json["mixture_of_experts"] == true);
  CHECK(json["active_parameters"] == 32e9);
  CHECK(json["memory_gb_per_slice"] == Approx(2400));
  CHECK_THAT(json["formula"].get<std::string>(), Catch::StartsWith("mixture of experts: every expert's weights"));
}

TEST_CASE("plan --hf-config of a Llama 3 and a Mixtral config.json: each a slice and why") {
  ConfigDir dir;
  auto llama = Tputrain({"plan", "--hf-config", dir.Write("Meta-Llama-3-8B", kLlama3_8B)});
  REQUIRE(llama.exit_code == 0);
  CHECK_THAT(llama.out, Catch::Contains("Meta-Llama-3-8B (8.03 B parameters, train)"));
  CHECK_THAT(llama.out, Catch::Contains("LlamaForCausalLM, sized as MaxText's llama2 decoder"));
  CHECK_THAT(llama.out, Catch::Contains("v6e-16 (16 chips, topology 4x4)"));
  CHECK_THAT(llama.out, Catch::Contains("why: 8.03 B parameters"));
  auto mixtral = Tputrain({"plan", "--hf-config", dir.Write("Mixtral-8x7B-v0.1", kMixtral8x7B), "--mode", "serve"});
  REQUIRE(mixtral.exit_code == 0);
  CHECK_THAT(mixtral.out, Catch::Contains("Mixtral-8x7B-v0.1 (46.7 B parameters, 12.88 B active per token, serve)"));
  CHECK_THAT(mixtral.out, Catch::Contains("v6e-4 (4 chips, topology 2x2)"));
  CHECK_THAT(mixtral.out, Catch::Contains("why: mixture of experts: every expert's weights are held in HBM"));
}

TEST_CASE("tputrain models lists the table: name, parameters, active, default slices; --format json") {
  auto table = Tputrain({"models"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("MODEL") && Catch::Contains("ACTIVE") && Catch::Contains("SERVE"));
  CHECK(std::regex_search(table.out, std::regex(R"(deepseek3-671b +671B +37.55B +v5p-512 +v6e-64)")));
  auto json = Tputrain({"models", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  auto models = nlohmann::json::parse(json.out);
  REQUIRE(models.size() > 80);
  bool llama = false;
  for (const auto& model : models) {
    CHECK(model["parameters"].get<double>() >= model["active_parameters"].get<double>());
    CHECK(model["serve"].is_object());
    if (model["name"] == "llama3.3-70b") {
      llama = true;
      CHECK(model["maxtext_model_name"] == "llama3.3-70b");
      CHECK(model["train"]["accelerator_type"] == "v6e-128");
      CHECK(model["serve"]["accelerator_type"] == "v6e-8");
    }
  }
  CHECK(llama);
}

TEST_CASE("submit --model llama3.3-70b --dry-run: MaxText's model_name and an ICI split that fills the slice") {
  auto result = Tputrain(
      {"submit", "--model", "llama3.3-70b", "--address", "http://127.0.0.1:1", "--dry-run", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  auto plan = nlohmann::json::parse(result.out);
  CHECK(plan["tpu_type"] == "v6e-128");
  const std::string entrypoint = plan["requests"].back()["body"]["entrypoint"];
  CHECK_THAT(entrypoint, Catch::Contains(" model_name=llama3.3-70b "));
  std::smatch fsdp, tensor;
  REQUIRE(std::regex_search(entrypoint, fsdp, std::regex(R"(ici_fsdp_parallelism=(\d+))")));
  REQUIRE(std::regex_search(entrypoint, tensor, std::regex(R"(ici_tensor_parallelism=(\d+))")));
  CHECK(std::stoi(fsdp[1]) * std::stoi(tensor[1]) == 128);
  CHECK(plan["tflops_per_device_step"].is_number());  // a dense Llama: tputrain's arithmetic is MaxText's
  auto moe = Tputrain(
      {"submit", "--model", "qwen3-30b-a3b", "--address", "http://127.0.0.1:1", "--dry-run", "--format", "json"});
  REQUIRE(moe.exit_code == 0);
  auto moe_plan = nlohmann::json::parse(moe.out);
  CHECK_THAT(moe_plan["requests"].back()["body"]["entrypoint"].get<std::string>(),
             Catch::Contains(" model_name=qwen3-30b-a3b "));
  CHECK(moe_plan["tflops_per_device_step"].is_null());  // MaxText's step lines say it
}

TEST_CASE("bad model input: one line, exit 2, naming the flag") {
  ConfigDir dir;
  const std::string big = (dir.path / "big.json").string();
  std::ofstream(big) << "{\"pad\": \"" << std::string(2 * 1024 * 1024, ' ') << "\"}";
  const std::string latin1 = dir.Write("latin1", "{\"architectures\": [\"Llama\xe9\"]}");
  const std::string broken = dir.Write("broken", "{\"hidden_size\": 4096,");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {{"plan", "--model", "qwen3-23b"}, "--model: unknown model 'qwen3-23b'; nearest: "},
           {{"plan", "--params", "70q"}, "--params: expected a parameter count"},
           {{"plan", "--params", "70b", "--active-params", "71b"}, "--active-params: 71b is more than"},
           {{"plan", "--active-params", "3b", "--model", "qwen3-32b"}, "--active-params: only with --params"},
           {{"plan", "--model", "qwen3-32b", "--params", "32b"}, "--params: give one of"},
           {{"plan"}, "--model: required"},
           {{"plan", "--hf-config", big}, "--hf-config: " + big + " is larger than 1 MiB"},
           {{"plan", "--hf-config", latin1}, "--hf-config " + latin1 + ": not valid JSON"},
           {{"plan", "--hf-config", broken}, "--hf-config " + broken + ": not valid JSON"},
           {{"plan", "--hf-config", "/nonexistent/config.json"}, "--hf-config: cannot read"},
           {{"plan", "--model", "qwen3\xff"}, "--model"},
           {{"submit", "--model", "lama3.3-70b", "--address", "http://127.0.0.1:1", "--dry-run"},
            "--model: unknown model 'lama3.3-70b'; nearest: llama3.3-70b"},
           {{"submit", "--model", "saxml-175b-test", "--address", "http://127.0.0.1:1", "--dry-run"},
            "not a model MaxText trains"},
           {{"serve", "up", "--engine", "vllm", "--model", "someone/model", "--dry-run"}, "--tpu-type: needed for"},
           {{"serve", "up", "--model", "llama3.1-405b", "--hf-config", "x"}, "--hf-config: only for --engine vllm"},
       }) {
    auto result = Tputrain(c.args);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
}

TEST_CASE("serve up --engine vllm without --tpu-type sizes the slice and says why (dry run)") {
  auto result = Tputrain({"serve", "up", "--engine", "vllm", "--model", "meta-llama/Llama-3.3-70B-Instruct",
                          "--dry-run", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  auto json = nlohmann::json::parse(result.out);
  CHECK(json["tpu_type"] == "v6e-8");
  CHECK_THAT(json["why"].get<std::string>(),
             Catch::StartsWith("meta-llama/Llama-3.3-70B-Instruct sized as llama3.3-70b") && Catch::Contains("v6e-8"));
  ConfigDir dir;
  auto table = Tputrain({"serve", "up", "--engine", "vllm", "--model", "mistralai/my-mixtral-finetune", "--hf-config",
                         dir.Write("Mixtral-8x7B-v0.1", kMixtral8x7B), "--dry-run"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("# mistralai/my-mixtral-finetune on v6e-4 (vllm, 1 host): nothing applied"));
  CHECK_THAT(table.out, Catch::Contains("# why: sized from --hf-config"));
}
