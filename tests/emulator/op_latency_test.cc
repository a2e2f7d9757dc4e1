// `--op-latency DEFAULT,METHOD=DURATION,...`: each kind of call's operations at their own pace,
// as bench/up.sh needs them (a cluster 20 s, a node pool 15 s, a build 20 s, the rest 2 s).
#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tputrain/core/error.h"
#include "tputrain/emulator/config.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kZone = "/v1/projects/p/locations/us-east5-b";

EmulatorConfig Config(const std::string& latency) {
  StartOptions options;
  options.op_latency = latency;
  auto config = MakeConfig(options);
  REQUIRE(config);
  return *config;
}

json ClusterBody(const std::string& name) {
  return {{"cluster", {{"name", name}, {"nodePools", {{{"name", "default-pool"}, {"initialNodeCount", 1}}}}}},
          {"parent", "projects/p/locations/us-east5-b"}};
}

TEST_CASE("--op-latency: a method's own latency over the default, matched by its id's tail") {
  auto config = Config("2s,clusters.create=20s,nodePools.create=15s,builds.create=20s");
  CHECK(config.op_latency == 2s);
  CHECK(config.LatencyOf("container.projects.locations.clusters.create") == 20s);
  CHECK(config.LatencyOf("container.projects.zones.clusters.create") == 20s);
  CHECK(config.LatencyOf("container.projects.locations.clusters.nodePools.create") == 15s);
  CHECK(config.LatencyOf("cloudbuild.projects.locations.builds.create") == 20s);
  CHECK(config.LatencyOf("container.projects.locations.clusters.delete") == 2s);
  CHECK_FALSE(config.NamedLatencyOf("artifactregistry.projects.locations.repositories.create"));

  // A bare duration is still the one latency of every operation.
  CHECK(Config("300ms").LatencyOf("container.projects.locations.clusters.create") == 300ms);

  for (const char* bad : {"soon", "2s,clusters.create=soon", "2s,3s", "2s,clusters.frobnicate=1s", "2s,*=1s"}) {
    StartOptions options;
    options.op_latency = bad;
    auto refused = MakeConfig(options);
    INFO(bad);
    REQUIRE_FALSE(refused);
    CHECK(core::IsUsageError(refused.error()));
    CHECK(refused.error().message.rfind("--op-latency: ", 0) == 0);
  }
}

TEST_CASE("--op-latency: the cluster's create runs its own latency, its delete the default") {
  Driver driver(Config("2s,clusters.create=20s"));
  REQUIRE(driver.Send("POST", kZone + "/clusters", ClusterBody("c")).status == 200);
  driver.Advance(19s);
  CHECK(driver.Send("GET", kZone + "/clusters/c").body["status"] == "PROVISIONING");
  driver.Advance(1s);
  CHECK(driver.Send("GET", kZone + "/clusters/c").body["status"] == "RUNNING");
  REQUIRE(driver.Send("DELETE", kZone + "/clusters/c").status == 200);
  driver.Advance(2s);
  CHECK(driver.Send("GET", kZone + "/clusters/c").status == 404);
}

TEST_CASE("--op-latency: a repository create or an API enable named there is not done until it has run", ) {
  Driver driver(Config("2s,repositories.create=2s,services.batchEnable=2s"));
  auto op =
      driver.Send("POST", "/v1/projects/p/locations/us-east5/repositories?repositoryId=r", {{"format", "DOCKER"}});
  REQUIRE(op.status == 200);
  CHECK(op.body["done"] == false);
  CHECK_FALSE(op.body.contains("response"));
  CHECK_FALSE(op.body.contains("_timer"));
  const std::string op_path = "/v1/" + op.body["name"].get<std::string>();
  driver.Advance(1s);
  CHECK(driver.Send("GET", op_path).body["done"] == false);
  driver.Advance(1s);
  auto done = driver.Send("GET", op_path);
  CHECK(done.body["done"] == true);
  CHECK(done.body["response"]["name"] == "projects/p/locations/us-east5/repositories/r");
  CHECK_FALSE(done.body.contains("_response"));

  auto enable =
      driver.Send("POST", "/v1/projects/p/services:batchEnable", {{"serviceIds", {"container.googleapis.com"}}});
  REQUIRE(enable.status == 200);
  CHECK(enable.body["done"] == false);
  driver.Advance(2s);
  CHECK(driver.Send("GET", "/v1/" + enable.body["name"].get<std::string>()).body["done"] == true);

  // Unnamed, they end at once, as Google's usually do.
  Driver plain(Config("2s"));
  auto at_once =
      plain.Send("POST", "/v1/projects/p/locations/us-east5/repositories?repositoryId=r", {{"format", "DOCKER"}});
  CHECK(at_once.body["done"] == true);
}

}  // namespace
}  // namespace tputrain::emulator
