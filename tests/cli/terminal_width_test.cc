// Each command that prints a table, run against the emulator with stdout and stderr on an
// 80-column terminal: no line wider, no internal word; lists spanning zones say each one's zone,
// node pools their capacity mode, and an empty list says so.
#include <catch2/catch.hpp>

#include "testing/terminal_screen.h"
#include "workflow/emulator_env.h"

namespace tputrain::testing {

using workflow::testing::EmulatorEnv;

TEST_CASE("each command that prints a table fits an 80-column terminal", "[integration]") {
  EmulatorEnv emulator({}, "100ms");
  REQUIRE(emulator.ready());
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : emulator.Environment()) {
    if (value) env[name] = *value;
  }
  env["TPUTRAIN_PROJECT"] = "ml-platform-training-prod";
  env["TPUTRAIN_RUN"] = "terminal-width";
  env["XDG_STATE_HOME"] = emulator.dir().string() + "/xdg-state";
  env["XDG_CACHE_HOME"] = emulator.dir().string() + "/xdg-cache";
  const auto run = [&](const std::vector<std::string>& args) {
    const Screen screen = OnTerminal(args, env);
    std::string name = "tputrain";
    for (const auto& word : args) name += " " + word;
    INFO(name);
    CHECK(screen.exit_code == 0);
    FitsAndSpeaksPlainly(name, screen);
    return screen;
  };

  // Lists with nothing in them say so.
  const Screen none = run({"cluster", "list", "--location", "us-central1"});
  CHECK(none.text.find("No clusters") != std::string::npos);
  run({"tpu-vm", "list", "--zone", "us-east5-a"});

  // A run with long names, a pool made with two slices in parallel, TPU VMs in two zones.
  run({"cluster", "create", "ray-tpu-v6e-training-us-central1-prod", "--location", "us-central1-b", "--tpu-type",
       "v6e-16", "--num-slices", "2"});
  run({"bucket", "create", "gs://ml-platform-training-prod-checkpoints-us-central1", "--bucket-location",
       "us-central1"});
  run({"tpu-vm", "create", "tpu-v5p-8-training-worker-0", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
       "--spot"});
  run({"tpu-vm", "create", "tpu-v5p-8-training-worker-1", "--zone", "us-east5-b", "--accelerator-type", "v5p-8"});

  run({"plan", "--model", "llama3-8b"});
  run({"plan", "--model", "llama3.1-405b", "--mode", "serve", "--location", "us-east5", "--hours", "10"});
  run({"prices", "--location", "us-east5"});
  run({"cluster", "list"});
  const Screen pools =
      run({"nodepool", "list", "--cluster", "ray-tpu-v6e-training-us-central1-prod", "--location", "us-central1-b"});
  CHECK(pools.text.find("CAPACITY") != std::string::npos);
  const Screen vms = run({"tpu-vm", "list"});  // every zone: the zone says where each is
  CHECK(vms.text.find("ZONE") != std::string::npos);
  CHECK(vms.text.find("us-east5-b") != std::string::npos);
  run({"runs", "list"});
  run({"runs", "show"});
  run({"cleanup", "--dry-run"});
  run({"cleanup", "--scan", "--location", "us-central1"});
  run({"render", "--list"});
  run({"render", "raycluster-maxtext", "--describe"});
  run({"config", "show"});
  run({"services", "list"});
  run({"registry", "list", "--location", "us-central1"});
  run({"auth", "status"});
  run({"version"});
  run({"cleanup", "--yes"});
}

}  // namespace tputrain::testing
