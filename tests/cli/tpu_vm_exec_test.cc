// tpu-vm exec --dry-run sends nothing: no credentials, no node read, no tunnel, no job. The APIs
// are a closed port and there are no credentials, so anything sent would fail the run.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::TputrainBinary;

namespace {

tputrain::testing::ProcessResult DryRun(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TputrainBinary(), "tpu-vm",     "exec",     "ray-vm", "--project", "p",
                                   "--zone",         "us-east5-a", "--dry-run"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunInProcess({.argv = argv,
                       .env = {{"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/adc.json"},
                               {"CLOUDSDK_CONFIG", "/nonexistent/gcloud"},
                               {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", std::nullopt},
                               {"CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU", "http://127.0.0.1:9/"},
                               {"TPUTRAIN_IAP_TUNNEL_URL", "wss://127.0.0.1:9"}}});
}

}  // namespace

TEST_CASE("tpu-vm exec --dry-run says what it would run and sends nothing") {
  auto shown = DryRun({"--worker", "all", "--", "python3", "-c", "print('hi there')"});
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(shown.err.empty());
  CHECK(shown.out ==
        "Would run on TPU VM ray-vm (us-east5-a), worker(s) all, as a Ray job reached through IAP (nothing sent):\n"
        "  python3 -c 'print('\"'\"'hi there'\"'\"')'\n");

  auto json = DryRun({"--worker", "1,0", "--format", "json", "--", "hostname"});
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const auto plan = nlohmann::json::parse(json.out);
  CHECK(plan["dry_run"] == true);
  CHECK(plan["node"] == "projects/p/locations/us-east5-a/nodes/ray-vm");
  CHECK(plan["workers"] == nlohmann::json::array({1, 0}));
  CHECK(plan["command"] == nlohmann::json::array({"hostname"}));
  CHECK(plan["steps"].size() == 4);

  // Bad input is still refused first, in one line.
  auto bad = DryRun({"--worker", "0,x", "--", "hostname"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("ERROR: --worker:", 0) == 0);
  auto ssh_flag = DryRun({"--ssh-key-file", "/tmp/k", "--", "hostname"});
  CHECK(ssh_flag.exit_code == 2);
  CHECK(ssh_flag.err == "ERROR: --ssh-key-file and --internal-ip go with --via ssh\n");
}
