// The Ray token of `tpu-vm create --ray` lives in the node's metadata (tputrain-ray-token), so
// every later process that reads the node reads it. Against `tputrain emulator start`: no
// command that reads the node prints it, with --verbose --log-http or without, whether it then
// succeeds or fails (paper TPU hosts never boot, so every command that needs Ray fails after the
// read: the read is what is tested).
#include <catch2/catch.hpp>

#include "workflow/emulator_env.h"

namespace tputrain::cli {
namespace {

using tputrain::workflow::testing::EmulatorEnv;

std::string TokenOf(EmulatorEnv& env, const std::string& node) {
  const auto nodes = env.State().value("tpuNodes", nlohmann::json::object());
  for (const auto& [name, body] : nodes.items()) {
    if (name.ends_with("/nodes/" + node)) return body["metadata"].value("tputrain-ray-token", "");
  }
  return "";
}

TEST_CASE("no command that reads a TPU VM with Ray prints its token, in --log-http or anywhere") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const std::vector<std::string> where = {"--zone", "us-east5-a"};
  std::vector<std::string> create = {
      "tpu-vm", "create",        "rv", "--zone",         "us-east5-a", "--accelerator-type", "v5p-8",
      "--ray",  "--ray-timeout", "3s", "--iap-firewall", "skip"};
  auto created = env.Tputrain(create);
  INFO("create: " << created.err);
  const std::string token = TokenOf(env, "rv");
  REQUIRE(token.size() >= 16);
  CHECK(created.out.find(token) == std::string::npos);
  CHECK(created.err.find(token) == std::string::npos);

  struct Read {
    std::vector<std::string> args;
    bool prints_node;      // its log has the node's metadata, the token's field name in it
    bool records = false;  // takes the test's --state-dir (a create, a cleanup)
  };
  std::vector<std::string> rerun = create;
  rerun.insert(rerun.end(), {"--verbose", "--log-http"});
  const std::vector<Read> reads = {
      {{"--verbose", "--log-http", "tpu-vm", "describe", "rv", "--zone", "us-east5-a"}, true},
      {{"--verbose", "--log-http", "tpu-vm", "describe", "rv", "--zone", "us-east5-a", "--format", "json"}, true},
      {{"--verbose", "--log-http", "tpu-vm", "list", "--zone", "us-east5-a"}, true},
      {{"--verbose", "--log-http", "tpu-vm", "ray-status", "rv", "--zone", "us-east5-a"}, true},
      {rerun, true, true},
      {{"--verbose", "--log-http", "job", "submit", "--tpu-vm", "rv", "--zone", "us-east5-a", "--", "echo", "hi"},
       true},
      {{"--verbose", "--log-http", "job", "list", "--tpu-vm", "rv", "--zone", "us-east5-a"}, true},
      {{"--verbose", "--log-http", "tpu-vm", "exec", "rv", "--zone", "us-east5-a", "--", "true"}, true},
      {{"--verbose", "--log-http", "cleanup", "--scan", "--project", "p"}, true, true},
      {{"--verbose", "--log-http", "cleanup", "--dry-run"}, false, true},
  };
  for (const auto& read : reads) {
    auto result = env.Tputrain(read.args, read.records);
    std::string command;
    for (const auto& arg : read.args) command += " " + arg;
    INFO("tputrain" << command << " (exit " << result.exit_code << ")\nstderr: " << result.err.substr(0, 20000));
    CHECK(result.out.find(token) == std::string::npos);
    CHECK(result.err.find(token) == std::string::npos);
    if (read.prints_node) {
      // Not vacuous: the node was read and logged, its token's field shown redacted.
      const bool logged = result.err.find(R"("tputrain-ray-token": "REDACTED")") != std::string::npos ||
                          result.err.find(R"("tputrain-ray-token":"REDACTED")") != std::string::npos;
      CHECK(logged);
    }
  }
}

}  // namespace
}  // namespace tputrain::cli
