#include <unistd.h>

#include <cstdio>

#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tputrain/core/base64.h"
#include "tputrain/emulator/config.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kZone = "/v1/projects/p/locations/us-east5-b";

json ClusterBody(const std::string& name) {
  return {{"cluster", {{"name", name}, {"nodePools", {{{"name", "default-pool"}, {"initialNodeCount", 3}}}}}},
          {"parent", "projects/p/locations/us-east5-b"}};
}

json TpuPool(const std::string& name, const std::string& machine, const std::string& topology, int nodes) {
  return {{"nodePool",
           {{"name", name},
            {"initialNodeCount", nodes},
            {"config", {{"machineType", machine}}},
            {"placementPolicy", {{"tpuTopology", topology}}}}}};
}

TEST_CASE("requests without a bearer token get 401 in each API's error shape") {
  Driver driver;
  auto container = driver.Send("GET", kZone + "/clusters", nullptr, false);
  CHECK(container.status == 401);
  CHECK(container.body["error"]["status"] == "UNAUTHENTICATED");
  auto storage = driver.Send("GET", "/storage/v1/b?project=p", nullptr, false);
  CHECK(storage.status == 401);
  CHECK(storage.body["error"]["errors"][0]["reason"] == "required");
  CHECK_FALSE(storage.body["error"].contains("status"));
}

TEST_CASE("a cluster is PROVISIONING, then RUNNING with endpoint and CA once its operation is DONE") {
  Driver driver;
  auto op = driver.Send("POST", kZone + "/clusters", ClusterBody("ray-tpu"));
  REQUIRE(op.status == 200);
  CHECK(op.body["operationType"] == "CREATE_CLUSTER");
  CHECK(op.body["status"] == "RUNNING");
  CHECK_FALSE(op.body.contains("_due"));
  std::string op_path = kZone + "/operations/" + op.body["name"].get<std::string>();

  auto provisioning = driver.Send("GET", kZone + "/clusters/ray-tpu");
  CHECK(provisioning.body["status"] == "PROVISIONING");
  CHECK_FALSE(provisioning.body.contains("endpoint"));

  SECTION("a node pool cannot be added while the cluster is being created") {
    auto early =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("v6e", "ct6e-standard-4t", "4x4", 4));
    CHECK(early.status == 400);
    CHECK(early.body["error"]["status"] == "FAILED_PRECONDITION");
    CHECK(early.body["error"]["details"][0]["reason"] == "CLUSTER_ALREADY_HAS_OPERATION");
  }

  driver.Advance(2s);
  auto done = driver.Send("GET", op_path);
  CHECK(done.body["status"] == "DONE");
  CHECK_FALSE(done.body.contains("error"));
  auto cluster = driver.Send("GET", kZone + "/clusters/ray-tpu");
  CHECK(cluster.body["status"] == "RUNNING");
  CHECK(cluster.body["endpoint"] == "127.0.0.1");
  CHECK_FALSE(cluster.body["masterAuth"]["clusterCaCertificate"].get<std::string>().empty());
  CHECK(cluster.body["currentMasterVersion"] == "1.32.4-gke.1415000");
  CHECK(cluster.body["selfLink"].get<std::string>().find("/clusters/ray-tpu") != std::string::npos);
  CHECK(cluster.body["nodePools"][0]["status"] == "RUNNING");
  // Still readable after DONE, and listed.
  CHECK(driver.Send("GET", op_path).status == 200);
  CHECK(driver.Send("GET", "/v1/projects/p/locations/-/operations").body["operations"].size() == 1);
  CHECK(driver.Send("GET", "/v1/projects/p/locations/-/clusters").body["clusters"].size() == 1);

  SECTION("TPU node pools: count = chips / chips per VM, known machine type and topology") {
    auto good =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("v6e-16", "ct6e-standard-4t", "4x4", 4));
    CHECK(good.status == 200);
    auto v5e =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("tpu1", "ct5lp-hightpu-4t", "4x8", 8));
    CHECK(v5e.status == 200);
    auto wrong =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("bad", "ct6e-standard-4t", "4x4", 3));
    CHECK(wrong.status == 400);
    CHECK(wrong.body["error"]["status"] == "INVALID_ARGUMENT");
    CHECK(wrong.body["error"]["message"].get<std::string>().find("must have exactly 4 nodes") != std::string::npos);
    auto topology =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("bad", "ct6e-standard-4t", "3x5", 4));
    CHECK(topology.status == 400);
    auto machine =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("bad", "ct9z-standard-4t", "4x4", 4));
    CHECK(machine.status == 400);
    auto duplicate =
        driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", TpuPool("v6e-16", "ct6e-standard-4t", "4x4", 4));
    CHECK(duplicate.status == 409);
    CHECK(duplicate.body["error"]["status"] == "ALREADY_EXISTS");
    auto orphan = driver.Send("POST", kZone + "/clusters/nope/nodePools", TpuPool("x", "ct6e-standard-4t", "4x4", 4));
    CHECK(orphan.status == 404);

    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools/v6e-16").body["status"] == "PROVISIONING");
    driver.Advance(2s);
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools/v6e-16").body["status"] == "RUNNING");
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools").body["nodePools"].size() == 3);
    auto deleting = driver.Send("DELETE", kZone + "/clusters/ray-tpu/nodePools/v6e-16");
    CHECK(deleting.body["operationType"] == "DELETE_NODE_POOL");
    driver.Advance(2s);
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools/v6e-16").status == 404);
  }

  SECTION("CPU node pools: any machine type, no topology, a boot disk from 10 GB to 64 TiB") {
    auto cpu_pool = [](const std::string& name, const json& disk) {
      json body = {
          {"nodePool", {{"name", name}, {"initialNodeCount", 1}, {"config", {{"machineType", "m1-ultramem-160"}}}}}};
      if (!disk.is_null()) body["nodePool"]["config"]["diskSizeGb"] = disk;
      return body;
    };
    auto good = driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", cpu_pool("m1-pool", 3000));
    CHECK(good.status == 200);
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools/m1-pool").body["config"]["diskSizeGb"] == 3000);
    CHECK(driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", cpu_pool("plain", json())).status == 200);
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu/nodePools/plain").body["config"]["diskSizeGb"] == 100);
    for (const json& disk : {json(9), json(65537), json("3000.5")}) {
      INFO(disk.dump());
      auto bad = driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", cpu_pool("bad", disk));
      CHECK(bad.status == 400);
      CHECK(bad.body["error"]["status"] == "INVALID_ARGUMENT");
      CHECK(bad.body["error"]["message"].get<std::string>().find("disk_size_gb") != std::string::npos);
    }
    auto topology = TpuPool("bad", "m1-ultramem-160", "4x4", 1);
    CHECK(driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", topology).status == 400);
  }

  SECTION("a duplicate cluster is 409 and a deleted cluster is gone once its operation is done") {
    auto duplicate = driver.Send("POST", kZone + "/clusters", ClusterBody("ray-tpu"));
    CHECK(duplicate.status == 409);
    CHECK(duplicate.body["error"]["message"] == "Already exists: projects/p/locations/us-east5-b/clusters/ray-tpu.");
    auto deleting = driver.Send("DELETE", kZone + "/clusters/ray-tpu");
    CHECK(deleting.body["operationType"] == "DELETE_CLUSTER");
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu").body["status"] == "STOPPING");
    driver.Advance(2s);
    CHECK(driver.Send("GET", kZone + "/clusters/ray-tpu").status == 404);
    CHECK(driver.Send("DELETE", kZone + "/clusters/ray-tpu").status == 404);
  }
}

TEST_CASE("a flex-start TPU pool starts with no nodes, autoscaled to one slice; queued provisioning is refused") {
  Driver driver;
  REQUIRE(driver.Send("POST", kZone + "/clusters", ClusterBody("ray-tpu")).status == 200);
  driver.Advance(3s);
  // What `gcloud container node-pools create --flex-start --enable-autoscaling --num-nodes 0 ...` sends.
  json flex = TpuPool("flex", "ct6e-standard-4t", "4x4", 0);
  flex["nodePool"]["config"]["flexStart"] = true;
  flex["nodePool"]["autoscaling"] = {
      {"enabled", true}, {"minNodeCount", 0}, {"maxNodeCount", 4}, {"locationPolicy", "ANY"}};
  CHECK(driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", flex).status == 200);

  json wrong_max = flex;
  wrong_max["nodePool"]["name"] = "wrong-max";
  wrong_max["nodePool"]["autoscaling"]["maxNodeCount"] = 2;
  auto refused = driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", wrong_max);
  CHECK(refused.status == 400);
  CHECK(refused.body["error"]["message"] ==
        "Maximum node count 2 is not a valid size of TPU pod slice with topology 4x4.");

  json queued = flex;
  queued["nodePool"]["name"] = "queued";
  queued["nodePool"]["queuedProvisioning"] = {{"enabled", true}};
  auto tpu_queued = driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", queued);
  CHECK(tpu_queued.status == 400);
  CHECK(tpu_queued.body["error"]["message"] == "Flex start node pools don't support TPUs with queued provisioning.");

  json fixed = TpuPool("fixed", "ct6e-standard-4t", "4x4", 0);
  CHECK(driver.Send("POST", kZone + "/clusters/ray-tpu/nodePools", fixed).status == 400);  // not autoscaled
}

TEST_CASE("cluster bodies are validated against the discovery schema and GKE's own rules") {
  Driver driver;
  auto unknown = driver.Send("POST", kZone + "/clusters", json{{"cluster", {{"name", "c"}, {"colour", "red"}}}});
  CHECK(unknown.status == 400);
  CHECK(unknown.body["error"]["message"] ==
        "Invalid JSON payload received. Unknown name \"colour\" at 'cluster': Cannot find field.");
  CHECK(unknown.body["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.BadRequest");
  auto bad_name = driver.Send("POST", kZone + "/clusters", json{{"cluster", {{"name", "Bad_Name"}}}});
  CHECK(bad_name.status == 400);
  auto not_json = driver.Send("POST", kZone + "/clusters", json("{not json"));
  CHECK(not_json.status == 400);
  auto bad_location = driver.Send("POST", "/v1/projects/p/locations/mars/clusters", ClusterBody("c"));
  CHECK(bad_location.status == 400);
  auto regional =
      driver.Send("POST", "/v1/projects/p/locations/us-east5/clusters",
                  json{{"cluster", {{"name", "jetstream"}, {"initialClusterVersion", "1.32.4-gke.1415000"}}}});
  CHECK(regional.status == 200);
  auto cluster = driver.Send("GET", "/v1/projects/p/locations/us-east5/clusters/jetstream");
  CHECK(cluster.body["locations"].size() == 3);
  CHECK(cluster.body["nodePools"][0]["name"] == "default-pool");
}

TEST_CASE("unknown paths are 404 in Google's shape; the server config answers") {
  Driver driver;
  CHECK(driver.Send("GET", "/v1/nothing/here").status == 404);
  auto config = driver.Send("GET", kZone + "/serverConfig");
  CHECK(config.status == 200);
  CHECK(config.body["validMasterVersions"].size() > 0);
}

}  // namespace
}  // namespace tputrain::emulator

namespace tputrain::emulator {
namespace {

TEST_CASE("--cluster-endpoint and --cluster-ca-file set what created clusters report") {
  char path[] = "/tmp/tputrain-emulator-ca-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  std::string pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  REQUIRE(write(fd, pem.data(), pem.size()) == static_cast<ssize_t>(pem.size()));
  close(fd);
  StartOptions options;
  options.cluster_endpoint = "https://127.0.0.1:6443/";
  options.cluster_ca_file = path;
  auto config = MakeConfig(options);
  std::remove(path);
  REQUIRE(config);
  CHECK(config->cluster_endpoint == "127.0.0.1:6443");
  Driver driver(*config);
  driver.Send("POST", kZone + "/clusters", ClusterBody("c"));
  driver.Advance(2s);
  auto cluster = driver.Send("GET", kZone + "/clusters/c");
  CHECK(cluster.body["endpoint"] == "127.0.0.1:6443");
  auto ca = core::DecodeBase64(cluster.body["masterAuth"]["clusterCaCertificate"].get<std::string>());
  REQUIRE(ca);
  CHECK(*ca == pem);

  options.cluster_ca_file = "/nonexistent/ca.pem";
  auto missing = MakeConfig(options);
  REQUIRE_FALSE(missing);
  CHECK(core::IsUsageError(missing.error()));
  StartOptions bad_latency;
  bad_latency.op_latency = "soon";
  CHECK_FALSE(MakeConfig(bad_latency));
  StartOptions bad_faults;
  bad_faults.faults = "clusters.create=sometimes";
  CHECK_FALSE(MakeConfig(bad_faults));
}

}  // namespace
}  // namespace tputrain::emulator
