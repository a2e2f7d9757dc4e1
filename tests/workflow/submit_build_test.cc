#include "tputrain/workflow/submit.h"

#include <catch2/catch.hpp>

#include "testing/fake_clock.h"

using namespace tputrain;

namespace {

using testing::FakeClock;

// Wall time at 2026-11-18T11:06:40Z, which run names carry; it moves only if the code sleeps.
FakeClock FixedTime() { return FakeClock(std::chrono::system_clock::time_point(std::chrono::seconds(1795000000))); }

}  // namespace

TEST_CASE("llama3-8b on v6e-16 gives seed 001's entrypoint", "[submit]") {
  FakeClock clock = FixedTime();
  workflow::SubmitSpec spec;
  spec.model = "llama3-8b";
  spec.tpu_type = "v6e-16";
  spec.run_name = "rayjob-8b-4096-tp4-4x4";
  auto job = workflow::BuildMaxTextJob(spec, clock);
  REQUIRE(job);
  CHECK(job->request.entrypoint ==
        "python /app/maxtext_ray_trainer.py /app/maxtext/src/MaxText/configs/base.yml base_output_directory=/data/ "
        "dataset_type=synthetic per_device_batch_size=1 max_target_length=4096 model_name=llama3-8b steps=100 "
        "ici_fsdp_parallelism=4 ici_tensor_parallelism=4 run_name=rayjob-8b-4096-tp4-4x4");
  CHECK(job->request.runtime_env["env_vars"]["RAY_DEDUP_LOGS"] == "0");
  CHECK(job->facts.devices_per_slice == 16);
  CHECK(*job->facts.peak_tflops_per_device == 918);
  CHECK(*job->facts.tokens_per_device_step == 4096);
  auto described = workflow::DescribeJob(*job);
  CHECK(described["requests"][0]["body"]["entrypoint"] == job->request.entrypoint);
}

TEST_CASE("the CPU smoke preset runs MaxText's trainer module with the tiny shape", "[submit]") {
  FakeClock clock = FixedTime();
  workflow::SubmitSpec spec;
  spec.model = "maxtext-cpu-smoke";
  spec.env = {"RAY_DEDUP_LOGS=1"};
  spec.sets = {"steps=3"};
  auto job = workflow::BuildMaxTextJob(spec, clock);
  REQUIRE(job);
  CHECK(job->request.entrypoint.rfind(
            "python -m maxtext.trainers.pre_train.train base_output_directory=/tmp/tputrain-runs/ "
            "dataset_type=synthetic per_device_batch_size=1 max_target_length=128 steps=3 "
            "run_name=maxtext-cpu-smoke-20261118-110640 base_emb_dim=64",
            0) == 0);
  CHECK(job->request.entrypoint.find("hardware=cpu skip_jax_distributed_system=true") != std::string::npos);
  CHECK(job->steps == 3);
  CHECK(job->request.runtime_env["env_vars"]["RAY_DEDUP_LOGS"] == "1");  // the user's choice wins
  CHECK(job->request.runtime_env["env_vars"]["JAX_PLATFORMS"] == "cpu");
  CHECK(*job->facts.tflops_per_device_step == Approx(8.8080384e-05).epsilon(1e-12));
}

TEST_CASE("bad submit input is refused with the flag named", "[submit]") {
  FakeClock clock = FixedTime();
  auto refuse = [&](workflow::SubmitSpec spec, const std::string& flag) {
    auto job = workflow::BuildMaxTextJob(spec, clock);
    REQUIRE_FALSE(job);
    CHECK(core::IsUsageError(job.error()));
    CHECK(job.error().message.find(flag) != std::string::npos);
  };
  refuse({.model = "llama3-8b", .tpu_type = "v6e-16", .sets = {"ici_fsdp_parallelism=2"}}, "ici_fsdp_parallelism=2");
  refuse({.model = "llama3-8b", .tpu_type = "v6e-4"}, "--tpu-type");
  refuse({.model = "llama3-8b", .tpu_type = "v6e-16", .sets = {"nokey"}}, "--set");
  refuse({.model = "maxtext-cpu-smoke", .tpu_type = "v6e-8"}, "--tpu-type");
  refuse({.model = "saxml-175b-test"}, "--model");
  refuse({.model = "gpt-9"}, "--model");
  // One axis left to MaxText (-1) is fine when the rest divides the chips.
  auto filled = workflow::BuildMaxTextJob(
      {.model = "llama3-8b", .tpu_type = "v6e-16", .sets = {"ici_fsdp_parallelism=-1", "ici_tensor_parallelism=8"}},
      clock);
  CHECK(filled);
}
