// `tputrain submit` against a real Ray head started from the MaxText venv
// (scripts/peers/maxtext.sh), with real MaxText training on CPU, and MaxText's own FLOP
// arithmetic called from that venv.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

#include "ray/ray_head.h"
#include "testing/scoped_process.h"
#include "tputrain/catalog/flops.h"

namespace tputrain::testing {
namespace {

std::string MaxTextVenv() {
  const char* cache = getenv("TPUTRAIN_TEST_CACHE");
  std::string base =
      cache != nullptr && cache[0] != '\0' ? cache : std::string(getenv("HOME")) + "/.cache/tputrain-test";
  return base + "/maxtext";
}

RayHead& MaxTextHead() {
  static std::unique_ptr<RayHead> head;
  if (!head) head = std::make_unique<RayHead>(RayHead::Options{MaxTextVenv(), 2, {}});
  return *head;
}

std::string TempDir() {
  std::string pattern = "/tmp/trmt-XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

ProcessResult Submit(std::vector<std::string> args) {
  auto& head = MaxTextHead();
  args.insert(args.begin(), {TputrainBinary(), "submit", "--address", head.address(), "--format", "json"});
  return RunProcess(ProcessOptions{args, head.CliEnv(), "", ""}, std::chrono::seconds(900));
}

nlohmann::json Json(const ProcessResult& result) {
  auto json = nlohmann::json::parse(result.out, nullptr, false);
  REQUIRE_FALSE(json.is_discarded());
  return json;
}

struct Printed {
  double tflops_per_s;
  double tokens_per_s;
};

// MaxText's own step lines, read with a regex of the test's own (not tputrain's parser).
std::vector<Printed> StepLines(const std::string& log) {
  static const std::regex line(
      R"(completed step: (\d+), seconds: [\d.]+, TFLOP/s/device: ([\d.]+), Tokens/s/device: ([\d.]+))");
  std::vector<Printed> steps;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it) {
    size_t step = std::stoul((*it)[1]);
    if (step == steps.size()) steps.push_back({std::stod((*it)[2]), std::stod((*it)[3])});
  }
  return steps;
}

// The summary must agree with MaxText's step lines: the exact step time is tokens ÷ Tokens/s,
// steps 0 and 1 are left out, and every printed TFLOP/s is the per-step TFLOPs over that time.
void CheckAgainstStepLines(const nlohmann::json& summary, const std::vector<Printed>& steps, double tokens,
                           double tflops) {
  REQUIRE(steps.size() >= 3);
  double total = 0;
  for (size_t i = 2; i < steps.size(); ++i) total += tokens / steps[i].tokens_per_s;
  double mean = total / static_cast<double>(steps.size() - 2);
  CHECK(summary["mean_step_seconds"].get<double>() == Approx(mean).epsilon(1e-6));
  CHECK(summary["tokens_per_second_per_device"].get<double>() == Approx(tokens / mean).epsilon(1e-6));
  CHECK(summary["tflops_per_second_per_device"].get<double>() == Approx(tflops / mean).epsilon(1e-6));
  for (const auto& step : steps) {
    CHECK(std::abs(tflops / (tokens / step.tokens_per_s) - step.tflops_per_s) <= 0.0005 + 1e-9);
  }
}

}  // namespace

TEST_CASE("catalog FLOPs agree with MaxText's calculate_tflops_training_per_device", "[integration]") {
  struct Case {
    std::string model;
    std::vector<std::string> args;
  };
  for (const auto& c : std::vector<Case>{
           {"maxtext-cpu-smoke",
            {"per_device_batch_size=1", "max_target_length=128", "base_emb_dim=64", "base_num_query_heads=2",
             "base_num_kv_heads=2", "base_mlp_dim=128", "base_num_decoder_layers=2", "head_dim=32", "vocab_size=256"}},
           {"llama3-8b", {"model_name=llama3-8b", "per_device_batch_size=1", "max_target_length=4096"}},
           {"llama2-70b", {"model_name=llama2-70b", "per_device_batch_size=2", "max_target_length=2048"}}}) {
    std::string dir = TempDir();
    std::vector<std::string> argv = {MaxTextVenv() + "/bin/python",
                                     std::string(TPUTRAIN_SOURCE_DIR) + "/tests/maxtext/maxtext_flops.py",
                                     "run_name=flops",
                                     "base_output_directory=" + dir,
                                     "hardware=cpu",
                                     "skip_jax_distributed_system=true"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto result = RunProcess(ProcessOptions{argv, {{"JAX_PLATFORMS", "cpu"}}, "", dir}, std::chrono::seconds(300));
    INFO(c.model << ": " << result.err.substr(result.err.size() > 2000 ? result.err.size() - 2000 : 0));
    REQUIRE(result.exit_code == 0);
    auto theirs = nlohmann::json::parse(result.out.substr(result.out.rfind('{')));
    auto shape = *catalog::TrainingShapeOf(*catalog::FindModel(c.model));
    for (const auto& arg : c.args) {
      auto eq = arg.find('=');
      REQUIRE(catalog::ApplyTrainingOverride(shape, arg.substr(0, eq), arg.substr(eq + 1)));
    }
    auto ours = catalog::TrainingTflopsPerDevice(shape);
    CHECK(ours.total_tflops == Approx(theirs["total_tflops"].get<double>()).epsilon(1e-12));
    CHECK(ours.attention_tflops == Approx(theirs["attention_tflops"].get<double>()).epsilon(1e-12));
    CHECK(catalog::TrainingTokensPerDevice(shape) == theirs["tokens"].get<double>());
  }
}

TEST_CASE("a job printing MaxText step lines from 4 hosts yields the right summary", "[integration]") {
  const std::vector<double> seconds = {0.25, 40.0, 1.1004, 1.0987, 1.1021, 1.0999, 1.1013};
  const double tflops = 197.62862515814402;  // MaxText's figure for llama3-8b at 4096 tokens
  std::string list;
  for (double s : seconds) list += (list.empty() ? "" : ",") + std::to_string(s);
  auto result =
      Submit({"--model", "llama3-8b", "--tpu-type", "v6e-16", "--steps", std::to_string(seconds.size()), "--launcher",
              "python fake_maxtext.py", "--working-dir", std::string(TPUTRAIN_SOURCE_DIR) + "/tests/maxtext/jobs",
              "--output-dir", "/tmp/unused", "--set", "fake_step_seconds=" + list, "--set",
              "fake_tflops=" + std::to_string(tflops), "--set", "fake_workers=4"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  auto json = Json(result);
  CHECK(json["status"] == "SUCCEEDED");
  CHECK(json["tpu_type"] == "v6e-16");
  const auto& summary = json["summary"];
  double mean = 0;
  for (size_t i = 2; i < seconds.size(); ++i) mean += seconds[i];
  mean /= static_cast<double>(seconds.size() - 2);
  CHECK(summary["steps_logged"] == seconds.size());
  CHECK(summary["steps_timed"] == seconds.size() - 2);
  CHECK(summary["devices_per_slice"] == 16);
  CHECK(summary["mean_step_seconds"].get<double>() == Approx(mean).epsilon(1e-6));
  CHECK(summary["tokens_per_second_per_device"].get<double>() == Approx(4096 / mean).epsilon(1e-6));
  CHECK(summary["tokens_per_second_per_slice"].get<double>() == Approx(16 * 4096 / mean).epsilon(1e-6));
  CHECK(summary["tflops_per_second_per_device"].get<double>() ==
        Approx(std::stod(std::to_string(tflops)) / mean).epsilon(1e-6));
  CHECK(summary["mfu"].get<double>() == Approx(std::stod(std::to_string(tflops)) / mean / 918).epsilon(1e-6));
  CHECK(summary["final_loss"].get<double>() == Approx(10.0 - static_cast<double>(seconds.size() - 1)));
}

TEST_CASE("tputrain submit trains the CPU smoke preset with real MaxText", "[integration]") {
  std::string dir = TempDir();
  auto result =
      Submit({"--model", "maxtext-cpu-smoke", "--output-dir", dir, "--set", "jax_cache_dir=" + dir + "/jax", "--logs"});
  INFO(result.out << result.err.substr(result.err.size() > 4000 ? result.err.size() - 4000 : 0));
  REQUIRE(result.exit_code == 0);
  auto json = Json(result);
  CHECK(json["status"] == "SUCCEEDED");
  const auto& summary = json["summary"];
  CHECK(summary["steps_logged"] == 8);
  CHECK(summary["steps_requested"] == 8);
  CHECK(summary["devices_per_slice"] == 1);
  CHECK(summary["mfu"].is_null());
  CheckAgainstStepLines(summary, StepLines(result.err), 128, 8.8080384e-05);
}

TEST_CASE("a MaxText run inside Ray Train's JaxTrainer is followed too", "[integration]") {
  std::string dir = TempDir();
  auto result = Submit({"--model", "maxtext-cpu-smoke", "--launcher", "python jax_trainer.py", "--working-dir",
                        std::string(TPUTRAIN_SOURCE_DIR) + "/tests/maxtext/jobs", "--output-dir", dir, "--steps", "6",
                        "--set", "jax_cache_dir=" + dir + "/jax", "--env", "RAY_TRAIN_V2_ENABLED=1", "--logs"});
  INFO(result.out << result.err.substr(result.err.size() > 4000 ? result.err.size() - 4000 : 0));
  REQUIRE(result.exit_code == 0);
  auto json = Json(result);
  CHECK(json["status"] == "SUCCEEDED");
  CHECK(result.err.find("(RayTrainWorker pid=") != std::string::npos);
  const auto& summary = json["summary"];
  CHECK(summary["steps_logged"] == 6);
  CheckAgainstStepLines(summary, StepLines(result.err), 128, 8.8080384e-05);
}

}  // namespace tputrain::testing
