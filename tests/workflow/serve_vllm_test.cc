// serve up --engine vllm's plan: the slice, the template that fits it and the values that let a
// first start (download, XLA compile) finish; every bad model or parallelism one line.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <stdlib.h>

#include <catch2/catch.hpp>

#include "tputrain/core/base64.h"
#include "tputrain/workflow/serve_vllm.h"

namespace tputrain::workflow {
namespace {

const std::string kTemplates = std::string(TPUTRAIN_SOURCE_DIR) + "/templates";

VllmPlanRequest Request(std::string model, std::string tpu_type = "", std::vector<std::string> sets = {}) {
  return {std::move(model), std::move(tpu_type), "", std::move(sets), {}, {kTemplates}};
}

bool Has(const std::vector<std::string>& sets, const std::string& set) {
  return std::find(sets.begin(), sets.end(), set) != sets.end();
}

std::string Value(const std::vector<std::string>& sets, const std::string& name) {
  std::string value;
  for (const auto& set : sets) {
    if (set.rfind(name + "=", 0) == 0) value = set.substr(name.size() + 1);
  }
  return value;
}

TEST_CASE("a v6e 2x4 is one VM: a Deployment, tensor parallel 8") {
  auto plan = PlanVllm(Request("meta-llama/Llama-3.1-8B-Instruct", "v6e-8"));
  REQUIRE(plan);
  CHECK(plan->template_name == "vllm");
  CHECK(plan->hosts == 1);
  CHECK(plan->chips == 8);
  auto rendered = RenderVllm(*plan, Request("meta-llama/Llama-3.1-8B-Instruct", "v6e-8"));
  REQUIRE(rendered);
  CHECK(rendered->workload_kind == "Deployment");
  CHECK(rendered->service == "vllm-service");
}

TEST_CASE("a v6e 4x4 is four VMs: a LeaderWorkerSet of 4, tensor x pipeline parallel over 16 chips") {
  auto plan = PlanVllm(Request("org/model", "v6e-16", {"TENSOR_PARALLEL_SIZE=4", "PIPELINE_PARALLEL_SIZE=4"}));
  REQUIRE(plan);
  CHECK(plan->template_name == "vllm-multihost");
  CHECK(plan->hosts == 4);
  auto rendered = RenderVllm(*plan, Request("org/model", "v6e-16"));
  REQUIRE(rendered);
  CHECK(rendered->workload_kind == "LeaderWorkerSet");
  const auto lws = rendered->objects[0].json["spec"]["leaderWorkerTemplate"];
  CHECK(lws["size"] == 4);
  const std::string command = lws["leaderTemplate"]["spec"]["containers"][0]["args"][0];
  CHECK(command.find("--tensor-parallel-size=4 --pipeline-parallel-size=4") != std::string::npos);
}

TEST_CASE("a catalog model is its Hugging Face repo on the slice planned for its bf16 weights") {
  auto plan = PlanVllm(Request("llama2-70b"));
  REQUIRE(plan);
  CHECK(plan->model == "meta-llama/Llama-2-70b-chat-hf");
  CHECK(plan->tpu_type == "v6e-8");  // 140 GB of weights and headroom: 256 GB of HBM on one VM
  CHECK(plan->template_name == "vllm");
  CHECK(Has(plan->sets, "MODEL=meta-llama/Llama-2-70b-chat-hf"));
}

TEST_CASE("without --tpu-type, a repo id the table knows is sized for its bf16 weights, and why says how") {
  auto plan = PlanVllm(Request("meta-llama/Llama-3.3-70B-Instruct"));
  REQUIRE(plan);
  CHECK(plan->model == "meta-llama/Llama-3.3-70B-Instruct");  // served as given
  CHECK(plan->tpu_type == "v6e-8");                           // 70.55 B × 2 × 1.2 = 169 GB: 6 chips
  CHECK_THAT(plan->why,
             Catch::StartsWith("meta-llama/Llama-3.3-70B-Instruct sized as llama3.3-70b (taken by its name") &&
                 Catch::Contains("169 GB per slice") && Catch::Contains("v6e-8"));
  auto moe = PlanVllm(Request("Qwen/Qwen3-235B-A22B"));
  REQUIRE(moe);
  CHECK(moe->tpu_type == "v6e-32");  // every expert: 235 B × 2.4 = 564 GB, 17.6 chips
  CHECK(moe->template_name == "vllm-multihost");
  CHECK_THAT(moe->why, Catch::Contains("mixture of experts: every expert's weights are held in HBM"));
  // A model by name is served from its checkpoint on the Hub.
  auto named = PlanVllm(Request("qwen3-32b"));
  REQUIRE(named);
  CHECK(named->model == "Qwen/Qwen3-32B");
  CHECK(named->tpu_type == "v6e-4");
  // --tpu-type decides alone: no why.
  auto chosen = PlanVllm(Request("Qwen/Qwen3-32B", "v6e-8"));
  REQUIRE(chosen);
  CHECK(chosen->tpu_type == "v6e-8");
  CHECK(chosen->why.empty());
}

TEST_CASE("--hf-config sizes a checkpoint the table does not know") {
  char directory[] = "/tmp/tputrain-vllm-config-XXXXXX";
  REQUIRE(mkdtemp(directory) != nullptr);
  const std::string path = std::string(directory) + "/config.json";
  {
    std::ofstream out(path);
    out << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "intermediate_size": 28672,
      "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "vocab_size": 128256})";
  }
  auto request = Request("my-org/my-70b-finetune");
  request.hf_config = path;
  auto plan = PlanVllm(request);
  std::filesystem::remove_all(directory);
  REQUIRE(plan);
  CHECK(plan->tpu_type == "v6e-8");
  CHECK_THAT(plan->why, Catch::StartsWith("sized from --hf-config " + path + ": "));
}

TEST_CASE("vLLM's start-up deadline and the startup probe grow with the model, past vLLM's 600 s") {
  auto small = PlanVllm(Request("llama3-8b"));
  auto big = PlanVllm(Request("llama3.1-405b"));
  REQUIRE(small);
  REQUIRE(big);
  const int small_ready = std::stoi(Value(small->sets, "ENGINE_READY_TIMEOUT_S"));
  const int big_ready = std::stoi(Value(big->sets, "ENGINE_READY_TIMEOUT_S"));
  CHECK(small_ready >= 1800);
  CHECK(big_ready > small_ready);
  // The kubelet waits longer than vLLM, so vLLM's own message says why a start failed.
  CHECK(std::stoi(Value(big->sets, "STARTUP_PROBE_FAILURES")) * 30 > big_ready);
  CHECK(big->template_name == "vllm-multihost");
}

TEST_CASE("a gs:// directory is streamed by vLLM's Run:ai loader") {
  auto plan = PlanVllm(Request("gs://my-bucket/models/llama", "v6e-8"));
  REQUIRE(plan);
  CHECK(Has(plan->sets, "LOAD_FORMAT=runai_streamer"));
  CHECK(Has(plan->sets, "MODEL=gs://my-bucket/models/llama"));
}

TEST_CASE("--set comes after the plan's values, so it wins") {
  auto plan = PlanVllm(Request("org/model", "v6e-8", {"ENGINE_READY_TIMEOUT_S=99"}));
  REQUIRE(plan);
  CHECK(Value(plan->sets, "ENGINE_READY_TIMEOUT_S") == "99");
}

TEST_CASE("a bad model, a missing slice or parallelism that is not the slice's chips: one line, a usage error") {
  for (const auto* model :
       {"a/b;reboot", "a/b c", "nobody", "a/b/c", "../x", "gs://", "gs://b/..", "a/$(id)", "a/\n"}) {
    INFO(model);
    auto plan = PlanVllm(Request(model, "v6e-8"));
    REQUIRE_FALSE(plan);
    CHECK(plan.error().kind == core::ErrorKind::kInvalidArgument);
    CHECK(plan.error().message.rfind("--model: ", 0) == 0);
  }
  auto no_slice = PlanVllm(Request("org/model"));
  REQUIRE_FALSE(no_slice);
  CHECK_THAT(no_slice.error().message,
             Catch::StartsWith("--tpu-type: needed for org/model, which tputrain models does not list; give "
                               "--tpu-type, or --hf-config"));
  auto bad_type = PlanVllm(Request("org/model", "v6e-7"));
  REQUIRE_FALSE(bad_type);
  CHECK(bad_type.error().message.rfind("--tpu-type: ", 0) == 0);
  auto short_tp = PlanVllm(Request("org/model", "v6e-16", {"TENSOR_PARALLEL_SIZE=8"}));
  REQUIRE_FALSE(short_tp);
  CHECK(short_tp.error().message ==
        "--set TENSOR_PARALLEL_SIZE: times PIPELINE_PARALLEL_SIZE must be 16 (the chips of v6e-16), got 8 x 1");
  auto pipeline_on_one =
      PlanVllm(Request("org/model", "v6e-8", {"TENSOR_PARALLEL_SIZE=4", "PIPELINE_PARALLEL_SIZE=2"}));
  REQUIRE_FALSE(pipeline_on_one);
  CHECK(pipeline_on_one.error().message.rfind("--set PIPELINE_PARALLEL_SIZE: only for a multi-host slice", 0) == 0);
}

TEST_CASE("--hf-token-file: the token becomes Secret data under `token`, shown only as <redacted>") {
  auto plan = PlanVllm(Request("org/model", "v6e-8", {"HF_TOKEN_SECRET=my-hf"}));
  REQUIRE(plan);
  CHECK(plan->hf_token_secret == "my-hf");
  auto secret = HfTokenSecret("--hf-token-file", plan->hf_token_secret, "hf_SeCrEt123\n");
  REQUIRE(secret);
  CHECK(secret->kind == "Secret");
  CHECK(secret->name == "my-hf");
  CHECK(secret->json["data"]["token"] == core::EncodeBase64("hf_SeCrEt123"));
  const std::string shown = Shown(*secret).dump();
  CHECK(shown.find("hf_SeCrEt123") == std::string::npos);
  CHECK(shown.find(core::EncodeBase64("hf_SeCrEt123")) == std::string::npos);
  CHECK(Shown(*secret)["data"]["token"] == "<redacted>");
  k8s::Object string_data = *secret;
  string_data.json["stringData"] = {{"token", "hf_SeCrEt123"}};
  CHECK(Shown(string_data).dump().find("hf_SeCrEt123") == std::string::npos);
  CHECK(PlanVllm(Request("org/model", "v6e-8"))->hf_token_secret == "hf-token");  // the template's default
}

TEST_CASE("a token file that holds no single token is one line that does not echo it") {
  for (const auto* text : {"", "\n", "two\nlines", "has space", "tab\there", "nul\x01", "\xff\xfe"}) {
    auto secret = HfTokenSecret("--hf-token-file", "hf-token", text);
    REQUIRE_FALSE(secret);
    CHECK(secret.error().kind == core::ErrorKind::kInvalidArgument);
    CHECK(secret.error().message.rfind("--hf-token-file: ", 0) == 0);
    CHECK(secret.error().message.find('\n') == std::string::npos);
    if (std::string(text).size() > 2) CHECK(secret.error().message.find(text) == std::string::npos);
  }
  CHECK(HfTokenSecret("--hf-token-file", "hf-token", "hf_ok\r\n"));  // written on Windows
  auto bad_name = PlanVllm(Request("org/model", "v6e-8", {"HF_TOKEN_SECRET=Bad_Name"}));
  REQUIRE_FALSE(bad_name);
  CHECK(bad_name.error().message.rfind("--set HF_TOKEN_SECRET: ", 0) == 0);
}

TEST_CASE("vLLM's log milestones: Ray forming (multi-host), weights loaded, the API server up; latest stage wins") {
  CHECK(VllmMilestone("") == "");
  CHECK(VllmMilestone("INFO 11-26 08:00:01 [__init__.py:241] Automatically detected platform tpu.\n") == "loading");
  CHECK(VllmMilestone("Wait for all ray workers to be active. 1/4 is active\n"
                      "Wait for all ray workers to be active. 3/4 is active\n") == "Ray workers 3/4");
  CHECK(VllmMilestone("Wait for all ray workers to be active. 3/4 is active\n"
                      "All ray workers are active and the ray cluster is initialized successfully.\n") ==
        "Ray cluster up");
  CHECK(VllmMilestone("INFO [gpu_model_runner.py:1] Model loading took 14.99 GiB and 41.2 seconds\n") ==
        "weights loaded");
  CHECK(VllmMilestone("Model loading took 14.99 GiB\nINFO [api_server.py:1] Starting vLLM API server 0 on "
                      "http://0.0.0.0:8000\n") == "starting the API server");
  CHECK(VllmMilestone("Starting vLLM API server 0 on http://0.0.0.0:8000\nINFO:     Application startup complete.\n") ==
        "server up");
}

TEST_CASE("PrepareVllm: the token's Secret goes first, before the Deployment that reads it; no token, no Secret") {
  VllmUpRequest request;
  request.plan = Request("llama3-8b");
  request.hf_token = "hf_abc123\n";
  auto prepared = PrepareVllm(request);
  REQUIRE(prepared);
  REQUIRE(prepared->rendered.objects.size() == 3);
  CHECK(prepared->rendered.objects[0].kind == "Secret");
  CHECK(prepared->rendered.objects[0].name == "hf-token");
  CHECK(prepared->rendered.objects[1].kind == "Deployment");
  request.hf_token.reset();
  auto public_model = PrepareVllm(request);
  REQUIRE(public_model);
  CHECK(public_model->rendered.objects.size() == 2);
  CHECK(public_model->rendered.objects[0].kind == "Deployment");
}

}  // namespace
}  // namespace tputrain::workflow
