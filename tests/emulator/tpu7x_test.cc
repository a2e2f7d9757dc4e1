// Ironwood (TPU7x) as GKE and Compute make it: workload policies (a policy a pool names cannot be
// deleted), multi-host pools placed by one and never by tpuTopology, the GKE versions Ironwood
// needs, and the Cloud TPU API that does not offer it; each refusal in its API's error shape.
#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kRegion = "/compute/v1/projects/p/regions/us-central1/";
const std::string kZone = "/v1/projects/p/locations/us-central1-c";

// gcloud compute resource-policies create workload-policy NAME --region us-central1
// --type HIGH_THROUGHPUT --accelerator-topology TOPOLOGY
json WorkloadPolicy(const std::string& name, const std::string& topology) {
  return {{"name", name},
          {"region", "us-central1"},
          {"workloadPolicy", {{"acceleratorTopology", topology}, {"type", "HIGH_THROUGHPUT"}}}};
}

json Pool(const std::string& name, const std::string& machine, int nodes, const json& placement = nullptr,
          const std::string& version = "") {
  json pool = {{"name", name}, {"initialNodeCount", nodes}, {"config", {{"machineType", machine}}}};
  if (!placement.is_null()) pool["placementPolicy"] = placement;
  if (!version.empty()) pool["version"] = version;
  return {{"nodePool", pool}};
}

// A RUNNING cluster "c" in us-central1-c at `version`.
void Cluster(Driver& driver, const std::string& version) {
  json body = {{"cluster",
                {{"name", "c"},
                 {"initialClusterVersion", version},
                 {"nodePools", {{{"name", "default-pool"}, {"initialNodeCount", 1}}}}}}};
  REQUIRE(driver.Send("POST", kZone + "/clusters", body).status == 200);
  driver.Advance(3s);
  REQUIRE(driver.Send("GET", kZone + "/clusters/c").body["status"] == "RUNNING");
}

void Settle(Driver& driver) {
  driver.Advance(3s);
  (void)driver.Send("GET", kZone + "/clusters/c");
}

TEST_CASE("workload policies: insert and delete are regional operations; get, list; duplicates 409") {
  Driver driver;
  auto op = driver.Send("POST", kRegion + "resourcePolicies", WorkloadPolicy("wp", "4x4x4"));
  REQUIRE(op.status == 200);
  CHECK(op.body["kind"] == "compute#operation");
  CHECK(op.body["operationType"] == "insert");
  CHECK(op.body["status"] == "RUNNING");
  CHECK(op.body["region"].get<std::string>().ends_with("/compute/v1/projects/p/regions/us-central1"));
  const std::string name = op.body["name"];
  CHECK(driver.Send("GET", kRegion + "resourcePolicies/wp").body["status"] == "CREATING");
  driver.Advance(3s);
  CHECK(driver.Send("POST", kRegion + "operations/" + name + "/wait").body["status"] == "DONE");
  auto policy = driver.Send("GET", kRegion + "resourcePolicies/wp").body;
  CHECK(policy["kind"] == "compute#resourcePolicy");
  CHECK(policy["status"] == "READY");
  CHECK(policy["workloadPolicy"] == json{{"acceleratorTopology", "4x4x4"}, {"type", "HIGH_THROUGHPUT"}});
  CHECK(policy["region"].get<std::string>().ends_with("/regions/us-central1"));
  auto list = driver.Send("GET", kRegion + "resourcePolicies").body;
  CHECK(list["kind"] == "compute#resourcePolicyList");
  CHECK(list["items"].size() == 1);
  CHECK_FALSE(driver.Send("GET", "/compute/v1/projects/p/regions/us-east5/resourcePolicies").body.contains("items"));

  auto again = driver.Send("POST", kRegion + "resourcePolicies", WorkloadPolicy("wp", "2x2x2"));
  CHECK(again.status == 409);
  CHECK(again.body["error"]["errors"][0]["reason"] == "alreadyExists");
  auto both = WorkloadPolicy("x", "2x2x2");
  both["workloadPolicy"]["maxTopologyDistance"] = "BLOCK";
  CHECK(driver.Send("POST", kRegion + "resourcePolicies", both).status == 400);
  auto none = json{{"name", "y"}};
  CHECK(driver.Send("POST", kRegion + "resourcePolicies", none).status == 400);
  auto bad_type = WorkloadPolicy("z", "2x2x2");
  bad_type["workloadPolicy"]["type"] = "FASTEST";
  CHECK(driver.Send("POST", kRegion + "resourcePolicies", bad_type).status == 400);  // the enum, from discovery

  auto deleted = driver.Send("DELETE", kRegion + "resourcePolicies/wp");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["operationType"] == "delete");
  driver.Advance(3s);
  auto gone = driver.Send("GET", kRegion + "resourcePolicies/wp");
  CHECK(gone.status == 404);
  CHECK(gone.body["error"]["errors"][0]["reason"] == "notFound");
}

TEST_CASE("a tpu7x multi-host pool is placed by a workload policy, pinned at or above 1.34.0-gke.2201000") {
  Driver driver;
  Cluster(driver, "1.34");
  CHECK(driver.Send("GET", kZone + "/clusters/c").body["currentMasterVersion"] == "1.34.1-gke.3084001");
  const std::string pools = kZone + "/clusters/c/nodePools";
  const std::string pinned = "1.34.1-gke.3084001";

  SECTION("a tpuTopology is refused: the policy replaces it") {
    auto refused = driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 16, {{"tpuTopology", "4x4x4"}}, pinned));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["status"] == "INVALID_ARGUMENT");
    CHECK(refused.body["error"]["message"].get<std::string>().find("placement_policy.tpu_topology") !=
          std::string::npos);
  }
  SECTION("a policy that does not exist is INVALID_ARGUMENT, as PlacementPolicy.policyName documents") {
    auto refused = driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 16, {{"policyName", "nope"}}, pinned));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["status"] == "INVALID_ARGUMENT");
    CHECK(refused.body["error"]["message"].get<std::string>().find(
              "projects/p/regions/us-central1/resourcePolicies/nope was not found") != std::string::npos);
  }
  REQUIRE(driver.Send("POST", kRegion + "resourcePolicies", WorkloadPolicy("wp", "4x4x4")).status == 200);
  driver.Advance(3s);
  SECTION("hosts that are not the policy topology's: the gang size (xpk #751)") {
    auto refused = driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 8, {{"policyName", "wp"}}, pinned));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["message"] ==
          "Requested invalid target size '8' for a Managed Instance Group in the gang mode of size '16'. Should be "
          "equal to the gang size.");
  }
  SECTION("without a version the pool would come up below Ironwood's minimum: refused") {
    auto refused = driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 16, {{"policyName", "wp"}}));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["message"].get<std::string>().find("requires GKE version 1.34.0-gke.2201000") !=
          std::string::npos);
    // A v6e pool without a version does come up so (GKE's default node version).
    REQUIRE(driver.Send("POST", pools, Pool("v6e", "ct6e-standard-4t", 1)).status == 200);
    CHECK(driver.Send("GET", pools + "/v6e").body["version"] == "1.33.2-gke.1240000");
  }
  SECTION("a version newer than the master is refused") {
    auto refused =
        driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 16, {{"policyName", "wp"}}, "1.35.0-gke.1"));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["message"].get<std::string>().find("must not be newer") != std::string::npos);
  }
  SECTION("pinned, through the policy: created; the policy cannot be deleted while the pool names it") {
    auto created = driver.Send("POST", pools, Pool("iw", "tpu7x-standard-4t", 16, {{"policyName", "wp"}}, pinned));
    REQUIRE(created.status == 200);
    Settle(driver);
    auto pool = driver.Send("GET", pools + "/iw").body;
    CHECK(pool["status"] == "RUNNING");
    CHECK(pool["version"] == pinned);
    auto in_use = driver.Send("DELETE", kRegion + "resourcePolicies/wp");
    CHECK(in_use.status == 400);
    CHECK(in_use.body["error"]["errors"][0]["reason"] == "resourceInUseByAnotherResource");
    CHECK(in_use.body["error"]["message"] ==
          "The resource_policy resource 'projects/p/regions/us-central1/resourcePolicies/wp' is already being used by "
          "'projects/p/locations/us-central1-c/clusters/c/nodePools/iw'");
    REQUIRE(driver.Send("DELETE", pools + "/iw").status == 200);
    Settle(driver);
    CHECK(driver.Send("DELETE", kRegion + "resourcePolicies/wp").status == 200);
  }
  SECTION("a single-host tpu7x pool takes no placement at all") {
    auto created = driver.Send("POST", pools, Pool("one", "tpu7x-standard-4t", 1, nullptr, pinned));
    CHECK(created.status == 200);
  }
}

TEST_CASE("tpu7x on a 1.32 cluster is refused in GKE's shape, pinned or not") {
  Driver driver;
  Cluster(driver, "1.32.4-gke.1415000");
  REQUIRE(driver.Send("POST", kRegion + "resourcePolicies", WorkloadPolicy("wp", "2x2x2")).status == 200);
  driver.Advance(3s);
  auto refused = driver.Send("POST", kZone + "/clusters/c/nodePools",
                             Pool("iw", "tpu7x-standard-4t", 2, {{"policyName", "wp"}}, "1.32.4-gke.1415000"));
  CHECK(refused.status == 400);
  CHECK(refused.body["error"]["status"] == "INVALID_ARGUMENT");
  CHECK(refused.body["error"]["message"] ==
        "Invalid value for field 'node_pool.version': \"1.32.4-gke.1415000\". Machine type tpu7x-standard-4t requires "
        "GKE version 1.34.0-gke.2201000 or later.");
  json with_pool = {
      {"cluster",
       {{"name", "d"},
        {"initialClusterVersion", "1.33"},
        {"nodePools",
         {{{"name", "one"}, {"initialNodeCount", 1}, {"config", {{"machineType", "tpu7x-standard-4t"}}}}}}}}};
  auto cluster = driver.Send("POST", kZone + "/clusters", with_pool);
  CHECK(cluster.status == 400);
  CHECK(cluster.body["error"]["message"].get<std::string>().find("cluster.node_pools[0].version") != std::string::npos);
}

TEST_CASE("the Cloud TPU API refuses tpu7x (GKE or Compute Engine make it) and an empty runtime version") {
  Driver driver;
  const std::string nodes = "/v2/projects/p/locations/us-central1-c/nodes?nodeId=";
  json node = {{"acceleratorType", "tpu7x-8"}, {"runtimeVersion", "v2-alpha-tpu7x"}};
  auto refused = driver.Send("POST", nodes + "n", node);
  CHECK(refused.status == 400);
  CHECK(refused.body["error"]["status"] == "INVALID_ARGUMENT");
  CHECK(refused.body["error"]["message"].get<std::string>().rfind(
            "CloudTpu received an invalid AcceleratorType \"tpu7x-8\"", 0) == 0);
  CHECK(refused.body["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.BadRequest");
  json queued = {
      {"tpu", {{"nodeSpec", {{{"parent", "projects/p/locations/us-central1-c"}, {"nodeId", "q"}, {"node", node}}}}}}};
  auto queued_refused =
      driver.Send("POST", "/v2/projects/p/locations/us-central1-c/queuedResources?queuedResourceId=q", queued);
  CHECK(queued_refused.status == 400);
  CHECK(queued_refused.body["error"]["message"].get<std::string>().find("does not offer tpu7x") != std::string::npos);
  auto empty = driver.Send("POST", "/v2/projects/p/locations/us-east5-b/nodes?nodeId=e",
                           json{{"acceleratorType", "v6e-8"}, {"runtimeVersion", ""}});
  CHECK(empty.status == 400);
  CHECK(empty.body["error"]["message"].get<std::string>().find("runtime_version") != std::string::npos);
  // Nor does acceleratorTypes.list name it where GKE offers it.
  auto types = driver.Send("GET", "/v2/projects/p/locations/us-central1-c/acceleratorTypes").body;
  CHECK(types.dump().find("tpu7x") == std::string::npos);
}

TEST_CASE("any matching reservation: a reserved node or a queued resource's reservations/- binds to one with room") {
  Driver driver;
  const std::string nodes = "/v2/projects/p/locations/us-east5-b/nodes?nodeId=";
  json node = {
      {"acceleratorType", "v6e-8"}, {"runtimeVersion", "v2-alpha-tpuv6e"}, {"schedulingConfig", {{"reserved", true}}}};
  auto op = driver.Send("POST", nodes + "none", node);
  REQUIRE(op.status == 200);
  driver.Advance(3s);
  auto failed = driver.Send("GET", "/v2/" + op.body["name"].get<std::string>());
  CHECK(failed.body["done"] == true);
  CHECK(failed.body["error"]["message"].get<std::string>().rfind("Insufficient reserved capacity", 0) == 0);

  json reservation = {
      {"name", "r"},
      {"specificReservation", {{"count", "2"}, {"instanceProperties", {{"machineType", "ct6e-standard-4t"}}}}}};
  REQUIRE(driver.Send("POST", "/compute/v1/projects/p/zones/us-east5-b/reservations", reservation).status == 200);
  driver.Advance(3s);
  op = driver.Send("POST", nodes + "held", node);
  REQUIRE(op.status == 200);
  driver.Advance(3s);
  CHECK_FALSE(driver.Send("GET", "/v2/" + op.body["name"].get<std::string>()).body.contains("error"));
  CHECK(driver.Send("GET", "/compute/v1/projects/p/zones/us-east5-b/reservations/r")
            .body["specificReservation"]["inUseCount"] == "2");

  // A queued resource on any reservation waits while the one that matches is full.
  json queued = {{"tpu",
                  {{"nodeSpec",
                    {{{"parent", "projects/p/locations/us-east5-b"},
                      {"nodeId", "q"},
                      {"node", {{"acceleratorType", "v6e-8"}, {"runtimeVersion", "v2-alpha-tpuv6e"}}}}}}}},
                 {"reservationName", "projects/p/locations/us-east5-b/reservations/-"}};
  REQUIRE(
      driver.Send("POST", "/v2/projects/p/locations/us-east5-b/queuedResources?queuedResourceId=q", queued).status ==
      200);
  driver.Advance(5s);
  const std::string q = "/v2/projects/p/locations/us-east5-b/queuedResources/q";
  CHECK(driver.Send("GET", q).body["state"]["state"] == "WAITING_FOR_RESOURCES");
  REQUIRE(driver.Send("DELETE", "/v2/projects/p/locations/us-east5-b/nodes/held").status == 200);
  for (int i = 0; i < 4; ++i) {
    driver.Advance(3s);
    (void)driver.Send("GET", q);
  }
  CHECK(driver.Send("GET", q).body["state"]["state"] == "ACTIVE");
}

TEST_CASE("v6e on one 8-chip host: ct6e-standard-8t with one node and no topology") {
  Driver driver;
  json cluster = {{"cluster", {{"name", "c"}, {"nodePools", {{{"name", "default-pool"}, {"initialNodeCount", 1}}}}}}};
  REQUIRE(driver.Send("POST", "/v1/projects/p/locations/us-east5-b/clusters", cluster).status == 200);
  driver.Advance(3s);
  const std::string pools = "/v1/projects/p/locations/us-east5-b/clusters/c/nodePools";
  CHECK(driver.Send("POST", pools, Pool("v6e8", "ct6e-standard-8t", 1)).status == 200);
  CHECK(driver.Send("POST", pools, Pool("v6e8t", "ct6e-standard-8t", 1, {{"tpuTopology", "2x4"}})).status == 200);
  auto wrong = driver.Send("POST", pools, Pool("v6e8x", "ct6e-standard-8t", 2, {{"tpuTopology", "2x4"}}));
  CHECK(wrong.status == 400);
  CHECK(driver.Send("POST", pools, Pool("nope", "ct6e-standard-9t", 1)).status == 400);
}

}  // namespace
}  // namespace tputrain::emulator
