#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

struct ProgressLog final : core::Reporter {
  std::vector<std::string> lines;
  void Info(std::string_view) override {}
  void Warn(std::string_view) override {}
  void Progress(std::string_view task, std::string_view state) override {
    lines.push_back(std::string(task) + ": " + std::string(state));
  }
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
};

std::string Attributes(const std::vector<std::tuple<std::string, std::string, std::string>>& values) {
  nlohmann::json answer = {{"guestAttributes", nlohmann::json::array()}};
  for (const auto& [worker, key, value] : values) {
    answer["guestAttributes"].push_back(
        {{"workerId", worker},
         {"queryPath", "tputrain/"},
         {"queryValue", {{"items", {{{"namespace", "tputrain"}, {"key", key}, {"value", value}}}}}}});
  }
  return answer.dump();
}

TEST_CASE("--ray's metadata: the startup script, a token and the version; the user's keys kept, ours not overridden") {
  RayBoot boot;
  boot.token = NewRayToken();
  boot.start_args = "--num-cpus=4";
  auto metadata = RayMetadata(boot, {{"team", "ml"}});
  REQUIRE(metadata);
  CHECK(metadata->at("startup-script") == RayStartupScript());
  CHECK(metadata->at(kRayTokenKey) == boot.token);
  CHECK(metadata->at(kRayVersionKey) == "2.60.0");
  CHECK(metadata->at(kRayTimeoutKey) == "1800");  // seconds: --ray-timeout's default
  CHECK(metadata->at(kRayStartArgsKey) == "--num-cpus=4");
  CHECK(metadata->at("team") == "ml");
  CHECK(metadata->count(kRaySetupKey) == 0);  // none given: none sent
  CHECK(boot.token.size() == 64);
  CHECK(NewRayToken() != boot.token);

  auto clash = RayMetadata(boot, {{"startup-script", "echo mine"}});
  REQUIRE_FALSE(clash);
  CHECK(clash.error().message == "--metadata: startup-script is what --ray sets; leave it out");
}

TEST_CASE("the startup script is valid bash that reads its place from the metadata server only") {
  char path[] = "/tmp/tputrain-ray-script-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << RayStartupScript();
  const std::string check = std::string("bash -n ") + path;
  CHECK(std::system(check.c_str()) == 0);
  std::remove(path);
  const std::string script = RayStartupScript();
  for (const char* read : {"attributes/agent-worker-number", "network-interfaces/0/ip",
                           "attributes/worker-network-endpoints", "attributes/tputrain-ray-token"}) {
    CHECK(script.find(read) != std::string::npos);
  }
  CHECK(script.find("RAY_AUTH_MODE=token") != std::string::npos);
  // A metadata server that is briefly unavailable at boot is waited out, not taken for an answer.
  CHECK(script.find("md() { curl -sf --max-time 10 \"${md_retry[@]}\"") != std::string::npos);
  CHECK(script.find("--retry-connrefused") != std::string::npos);
  CHECK(script.find("--resources") == std::string::npos);  // Ray counts the chips itself
}

TEST_CASE("hosts' reports become one row per worker; what a host has not said yet is booting") {
  std::vector<gcp::tpu::GuestAttribute> values = {
      {"1", "tputrain", "ray-state", "ready"},  {"1", "tputrain", "ray-version", "2.60.0"},
      {"0", "tputrain", "ray-state", "failed"}, {"0", "tputrain", "ray-message", "ray start --head failed"},
      {"0", "hostkeys", "ray-state", "ready"},  {"7", "tputrain", "ray-state", "ready"},
      {"x", "tputrain", "ray-state", "ready"}};
  auto rows = RayHostsFrom(values, 3);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].state == RayHostState::kFailed);
  CHECK(rows[0].message == "ray start --head failed");
  CHECK(rows[1].state == RayHostState::kReady);
  CHECK(rows[1].ray_version == "2.60.0");
  CHECK(rows[2].state == RayHostState::kBooting);
  CHECK(RayHostStateName(RayHostState::kWaitingForHead) == "waiting-for-head");
}

TEST_CASE("WaitForRay polls the guest attributes with backoff until every host is ready, saying each change") {
  testing::FakeTransport transport;
  transport.On("POST", ":getGuestAttributes",
               {testing::JsonReply(200, "{}"),
                testing::JsonReply(
                    200, Attributes({{"0", "ray-state", "starting-head"}, {"1", "ray-state", "waiting-for-head"}})),
                testing::JsonReply(200, Attributes({{"0", "ray-state", "ready"}, {"1", "ray-state", "joining"}})),
                testing::JsonReply(200, Attributes({{"0", "ray-state", "ready"}, {"1", "ray-state", "ready"}}))});
  gcp::tpu::Client client(transport, "https://tpu.googleapis.com/");
  testing::FakeClock clock;
  ProgressLog log;
  auto rows = WaitForRay(client, {"p", "z", "ray"}, 2, std::chrono::minutes(10), {clock, clock, nullptr}, log);
  REQUIRE(rows);
  CHECK(rows->size() == 2);
  CHECK(log.lines == std::vector<std::string>{"ray ray: 0/2 hosts ready, 2 booting",
                                              "ray ray: 0/2 hosts ready, 1 starting-head, 1 waiting-for-head",
                                              "ray ray: 1/2 hosts ready, 1 joining", "ray ray: 2/2 hosts ready"});
  const auto sleeps = clock.sleeps();
  REQUIRE(sleeps.size() == 3);
  CHECK(sleeps[1] > sleeps[0]);  // backoff, not a fixed interval
}

TEST_CASE("WaitForRay stops at once when a host reports failed, with its reason") {
  testing::FakeTransport transport;
  transport.On("POST", ":getGuestAttributes",
               {testing::JsonReply(200, Attributes({{"0", "ray-state", "ready"},
                                                    {"1", "ray-message", "pip install x failed"},
                                                    {"1", "ray-state", "failed"}}))});
  gcp::tpu::Client client(transport, "https://tpu.googleapis.com/");
  testing::FakeClock clock;
  core::NullReporter quiet;
  auto rows = WaitForRay(client, {"p", "z", "ray"}, 2, std::chrono::minutes(10), {clock, clock, nullptr}, quiet);
  REQUIRE_FALSE(rows);
  CHECK(rows.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(rows.error().message == "Ray on ray worker 1 failed: pip install x failed");
  CHECK(transport.Count("POST", ":getGuestAttributes") == 1);
}

}  // namespace
}  // namespace tputrain::workflow
