#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tputrain/emulator/config.h"

// The emulator runs out of TPU chips per zone, generation and mode, and answers as each Google
// API does: Cloud TPU's RESOURCE_EXHAUSTED operation error and 429 quota answer, GKE's pool in
// ERROR with GCE_STOCKOUT and its 403 quota answer, queued resources that wait, expire and go
// ACTIVE when chips free up, and Spot nodes preempted on demand.
namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using testing::Reply;
using namespace std::chrono_literals;

const std::string kParent = "projects/p/locations/us-east5-a";
const std::string kTpu = "/v2/" + kParent;
const std::string kGke = "/v1/" + kParent;

EmulatorConfig WithCapacity(const std::string& chips, const std::string& quota = "") {
  StartOptions options;
  options.capacity = chips;
  options.quota = quota;
  auto config = MakeConfig(options);
  REQUIRE(config);
  return *config;
}

json Node(const std::string& type, bool spot = false) {
  json node = {{"acceleratorType", type}, {"runtimeVersion", "v2-alpha-tpuv6e"}};
  if (spot) node["schedulingConfig"] = {{"spot", true}};
  return node;
}

// Creates a node and lets its operation end; the operation as it ended.
json CreateNode(Driver& driver, const std::string& id, const json& node) {
  auto created = driver.Send("POST", kTpu + "/nodes?nodeId=" + id, node);
  REQUIRE(created.status == 200);
  driver.Advance(3s);
  return driver.Send("GET", "/v2/" + created.body["name"].get<std::string>()).body;
}

void DeleteNode(Driver& driver, const std::string& id) {
  REQUIRE(driver.Send("DELETE", kTpu + "/nodes/" + id).status == 200);
  driver.Advance(3s);
  REQUIRE(driver.Send("GET", kTpu + "/nodes/" + id).status == 404);
}

json Queued(const std::string& id, const std::string& type, const json& policy = nullptr) {
  json body = {{"tpu", {{"nodeSpec", json::array({{{"parent", kParent}, {"nodeId", id}, {"node", Node(type)}}})}}}};
  if (!policy.is_null()) body["queueingPolicy"] = policy;
  return body;
}

std::string QueuedState(Driver& driver, const std::string& id) {
  return driver.Send("GET", kTpu + "/queuedResources/" + id).body["state"].value("state", "");
}

TEST_CASE("capacity: a TPU node create past the zone's chips ends RESOURCE_EXHAUSTED and the node is gone") {
  Driver driver(WithCapacity("us-east5-a/v6e=8"));
  CHECK_FALSE(CreateNode(driver, "first", Node("v6e-8")).contains("error"));
  CHECK(driver.Send("GET", kTpu + "/nodes/first").body["state"] == "READY");

  json failed = CreateNode(driver, "second", Node("v6e-4"));
  CHECK(failed["done"] == true);
  CHECK(failed["error"]["code"] == 8);
  CHECK(failed["error"]["message"].get<std::string>().rfind(
            "There is no more capacity in the zone \"us-east5-a\"; you can try in another zone", 0) == 0);
  CHECK(driver.Send("GET", kTpu + "/nodes/second").status == 404);

  // Another zone, and Spot (a pool of its own, unlimited here), are not short.
  CHECK_FALSE(CreateNode(driver, "spot", Node("v6e-4", true)).contains("error"));
  auto elsewhere = driver.Send("POST", "/v2/projects/p/locations/us-east5-b/nodes?nodeId=b", Node("v6e-8"));
  REQUIRE(elsewhere.status == 200);

  auto report = driver.Send("GET", "/_emulator/capacity").body;
  CHECK(report["chips"]["us-east5-a/v6e/on-demand"] == json({{"total", 8}, {"held", 8}, {"free", 0}}));

  DeleteNode(driver, "first");
  CHECK_FALSE(CreateNode(driver, "second", Node("v6e-4")).contains("error"));
}

TEST_CASE("capacity: chips are granted as creates end, so two creates racing for one slot leave one") {
  Driver driver(WithCapacity("us-east5-a/v6e=4"));
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=a", Node("v6e-4")).status == 200);
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=b", Node("v6e-4")).status == 200);
  driver.Advance(3s);
  const bool a = driver.Send("GET", kTpu + "/nodes/a").status == 200;
  const bool b = driver.Send("GET", kTpu + "/nodes/b").status == 200;
  CHECK(a != b);
}

TEST_CASE("capacity: a create past the region's quota is Cloud TPU's synchronous 429 with a QuotaFailure") {
  Driver driver(WithCapacity("", "us-east5/v6e/spot=0,us-east5/v6e=8"));
  auto spot = driver.Send("POST", kTpu + "/nodes?nodeId=s", Node("v6e-4", true));
  CHECK(spot.status == 429);
  CHECK(spot.body["error"]["status"] == "RESOURCE_EXHAUSTED");
  CHECK(spot.body["error"]["message"] ==
        "Quota limit 'TPUV6EPreemptiblePerProjectPerRegionForTPUAPI' has been exceeded. Limit: 0 in region us-east5.");
  CHECK(spot.body["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.QuotaFailure");
  CHECK(driver.Send("GET", kTpu + "/nodes/s").status == 404);

  // Quota counts what is being created too, in every zone of the region.
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=a", Node("v6e-4")).status == 200);
  REQUIRE(driver.Send("POST", "/v2/projects/p/locations/us-east5-b/nodes?nodeId=b", Node("v6e-4")).status == 200);
  auto third = driver.Send("POST", kTpu + "/nodes?nodeId=c", Node("v6e-1"));
  CHECK(third.status == 429);
  CHECK(third.body["error"]["message"] ==
        "Quota limit 'TPUV6EPerProjectPerRegionForTPUAPI' has been exceeded. Limit: 8 in region us-east5.");
}

TEST_CASE("capacity: a queued resource waits for chips, then goes PROVISIONING and ACTIVE when they free up") {
  Driver driver(WithCapacity("us-east5-a/v6e=8"));
  REQUIRE_FALSE(CreateNode(driver, "holder", Node("v6e-8")).contains("error"));
  REQUIRE(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=q", Queued("q", "v6e-8")).status == 200);
  CHECK(QueuedState(driver, "q") == "ACCEPTED");
  driver.Advance(3s);
  CHECK(QueuedState(driver, "q") == "WAITING_FOR_RESOURCES");
  driver.Advance(1h);
  CHECK(QueuedState(driver, "q") == "WAITING_FOR_RESOURCES");
  CHECK(driver.Send("GET", kTpu + "/nodes/q").status == 404);

  DeleteNode(driver, "holder");
  CHECK(QueuedState(driver, "q") == "PROVISIONING");
  driver.Advance(3s);
  CHECK(QueuedState(driver, "q") == "ACTIVE");
  auto node = driver.Send("GET", kTpu + "/nodes/q").body;
  CHECK(node["state"] == "READY");
  CHECK(node["queuedResource"] == kParent + "/queuedResources/q");
  CHECK(driver.Send("GET", "/_emulator/capacity").body["chips"]["us-east5-a/v6e/on-demand"]["held"] == 8);
}

TEST_CASE("capacity: waiting queued resources are served oldest first, each when its chips fit") {
  Driver driver(WithCapacity("us-east5-a/v6e=0"));
  REQUIRE(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=zz-old", Queued("zz-old", "v6e-8")).status ==
          200);
  driver.Advance(1s);
  REQUIRE(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=aa-new", Queued("aa-new", "v6e-8")).status ==
          200);
  driver.Advance(5s);
  REQUIRE(QueuedState(driver, "aa-new") == "WAITING_FOR_RESOURCES");

  auto raised = driver.Send("POST", "/_emulator/capacity", json{{"chips", {{"us-east5-a/v6e", 8}}}});
  REQUIRE(raised.status == 200);
  CHECK(QueuedState(driver, "zz-old") == "PROVISIONING");
  CHECK(QueuedState(driver, "aa-new") == "WAITING_FOR_RESOURCES");
  CHECK(raised.body["chips"]["us-east5-a/v6e/on-demand"]["held"] == 8);
}

TEST_CASE("capacity: a queued resource whose valid-until passes with no chips is FAILED, and stays until deleted") {
  Driver driver(WithCapacity("us-east5-a/v6e=0"));
  auto created = driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=q",
                             Queued("q", "v6e-8", {{"validUntilDuration", "60s"}}));
  REQUIRE(created.status == 200);
  driver.Advance(59s);
  CHECK(QueuedState(driver, "q") == "WAITING_FOR_RESOURCES");
  driver.Advance(1h);
  auto failed = driver.Send("GET", kTpu + "/queuedResources/q").body;
  CHECK(failed["state"]["state"] == "FAILED");
  CHECK(failed["state"]["failedData"]["error"]["code"] == 8);
  CHECK(failed["state"]["failedData"]["error"]["message"].get<std::string>().find("valid_until") != std::string::npos);
  // Chips that come after the deadline do not revive it.
  REQUIRE(driver.Send("POST", "/_emulator/capacity", json{{"chips", {{"us-east5-a/v6e", nullptr}}}}).status == 200);
  CHECK(QueuedState(driver, "q") == "FAILED");
  REQUIRE(driver.Send("DELETE", kTpu + "/queuedResources/q").status == 200);
  driver.Advance(3s);
  CHECK(driver.Send("GET", kTpu + "/queuedResources/q").status == 404);
}

TEST_CASE("capacity: a queued resource does not start before its valid-after time; a bad policy is 400") {
  Driver driver;
  REQUIRE(driver
              .Send("POST", kTpu + "/queuedResources?queuedResourceId=later",
                    Queued("later", "v6e-4", {{"validAfterDuration", "600s"}}))
              .status == 200);
  driver.Advance(599s);
  CHECK(QueuedState(driver, "later") == "WAITING_FOR_RESOURCES");
  driver.Advance(2s);
  CHECK(QueuedState(driver, "later") == "PROVISIONING");

  auto bad = driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=bad",
                         Queued("bad", "v6e-4", {{"validUntilTime", "tomorrow"}}));
  CHECK(bad.status == 400);
  CHECK(bad.body["error"]["message"].get<std::string>().find("queueing_policy.validUntilTime") != std::string::npos);
}

TEST_CASE("capacity: Spot nodes are preempted on demand and give their chips back") {
  Driver driver(WithCapacity("us-east5-a/v6e/spot=4"));
  REQUIRE_FALSE(CreateNode(driver, "spot", Node("v6e-4", true)).contains("error"));
  CHECK(CreateNode(driver, "more", Node("v6e-4", true)).contains("error"));

  auto preempted = driver.Send("POST", "/_emulator/preempt", json{{"node", kParent + "/nodes/spot"}});
  REQUIRE(preempted.status == 200);
  CHECK(driver.Send("GET", kTpu + "/nodes/spot").body["state"] == "PREEMPTED");
  CHECK_FALSE(CreateNode(driver, "more", Node("v6e-4", true)).contains("error"));

  REQUIRE_FALSE(CreateNode(driver, "standard", Node("v6e-4")).contains("error"));
  CHECK(driver.Send("POST", "/_emulator/preempt", json{{"node", kParent + "/nodes/standard"}}).status == 400);
  CHECK(driver.Send("POST", "/_emulator/preempt", json{{"node", kParent + "/nodes/none"}}).status == 404);
}

json Cluster(const std::string& name) {
  return {{"cluster", {{"name", name}, {"nodePools", {{{"name", "default-pool"}, {"initialNodeCount", 1}}}}}}};
}

json TpuPool(const std::string& name, const std::string& topology, int nodes, bool spot = false) {
  json config = {{"machineType", "ct6e-standard-4t"}};
  if (spot) config["spot"] = true;
  return {{"nodePool",
           {{"name", name},
            {"initialNodeCount", nodes},
            {"config", config},
            {"placementPolicy", {{"type", "COMPACT"}, {"tpuTopology", topology}}}}}};
}

// Creates the pool and lets its operation end; the operation as it ended.
json CreatePool(Driver& driver, const json& pool) {
  auto created = driver.Send("POST", kGke + "/clusters/c/nodePools", pool);
  REQUIRE(created.status == 200);
  driver.Advance(3s);
  return driver.Send("GET", kGke + "/operations/" + created.body["name"].get<std::string>()).body;
}

std::string PoolStatus(Driver& driver, const std::string& pool) {
  return driver.Send("GET", kGke + "/clusters/c/nodePools/" + pool).body.value("status", "");
}

TEST_CASE("capacity: a GKE TPU pool past the zone's chips ends in ERROR with GCE_STOCKOUT") {
  EmulatorConfig config = WithCapacity("us-east5-a/v6e=16");
  Driver driver(config);
  REQUIRE(driver.Send("POST", kGke + "/clusters", Cluster("c")).status == 200);
  driver.Advance(3s);
  CHECK_FALSE(CreatePool(driver, TpuPool("first", "4x4", 4)).contains("error"));
  CHECK(PoolStatus(driver, "first") == "RUNNING");

  json op = CreatePool(driver, TpuPool("second", "2x2", 1));
  CHECK(op["status"] == "DONE");
  CHECK(op["error"]["code"] == 8);
  CHECK(op["statusMessage"].get<std::string>().rfind("Google Compute Engine: Not enough resources available", 0) == 0);
  auto pool = driver.Send("GET", kGke + "/clusters/c/nodePools/second").body;
  CHECK(pool["status"] == "ERROR");
  CHECK(pool["conditions"][0]["code"] == "GCE_STOCKOUT");
  CHECK(pool["conditions"][0]["canonicalCode"] == "RESOURCE_EXHAUSTED");
  // With no retrying configured, the pool can go at once.
  CHECK(driver.Send("DELETE", kGke + "/clusters/c/nodePools/second").status == 200);
  // Spot capacity is counted apart.
  CHECK_FALSE(CreatePool(driver, TpuPool("spot", "2x2", 1, true)).contains("error"));
}

TEST_CASE("capacity: GKE retries a stocked-out pool, the cluster busy meanwhile, and brings it up if chips come") {
  EmulatorConfig config = WithCapacity("us-east5-a/v6e=0");
  config.stockout_retry = 60s;
  Driver driver(config);
  REQUIRE(driver.Send("POST", kGke + "/clusters", Cluster("c")).status == 200);
  driver.Advance(3s);
  json op = CreatePool(driver, TpuPool("tpu", "2x2", 1));
  REQUIRE(op["error"]["code"] == 8);
  REQUIRE(PoolStatus(driver, "tpu") == "ERROR");

  SECTION("other changes to the cluster are refused while it retries") {
    auto busy = driver.Send("DELETE", kGke + "/clusters/c/nodePools/tpu");
    CHECK(busy.status == 400);
    CHECK(busy.body["error"]["status"] == "FAILED_PRECONDITION");
    CHECK(busy.body["error"]["message"] ==
          "Cluster is running incompatible operation " + op["name"].get<std::string>() + ".");
    CHECK(driver.Send("POST", kGke + "/clusters/c/nodePools", TpuPool("other", "2x2", 1)).status == 400);
    CHECK(driver.Send("DELETE", kGke + "/clusters/c").status == 400);
    driver.Advance(60s);
    CHECK(PoolStatus(driver, "tpu") == "ERROR");
    CHECK(driver.Send("DELETE", kGke + "/clusters/c/nodePools/tpu").status == 200);
  }
  SECTION("chips that free up within the retry bring the pool up") {
    driver.Advance(30s);
    REQUIRE(driver.Send("POST", "/_emulator/capacity", json{{"chips", {{"us-east5-a/v6e", 4}}}}).status == 200);
    auto pool = driver.Send("GET", kGke + "/clusters/c/nodePools/tpu").body;
    CHECK(pool["status"] == "RUNNING");
    CHECK_FALSE(pool.contains("conditions"));
    CHECK(driver.Send("DELETE", kGke + "/clusters/c/nodePools/tpu").status == 200);
  }
}

TEST_CASE("capacity: a GKE pool past Compute's regional TPU quota is a synchronous 403") {
  Driver driver(WithCapacity("", "us-east5/v6e=8"));
  REQUIRE(driver.Send("POST", kGke + "/clusters", Cluster("c")).status == 200);
  driver.Advance(3s);
  auto refused = driver.Send("POST", kGke + "/clusters/c/nodePools", TpuPool("big", "4x4", 4));
  CHECK(refused.status == 403);
  CHECK(refused.body["error"]["status"] == "PERMISSION_DENIED");
  CHECK(refused.body["error"]["message"] ==
        "Insufficient regional quota to satisfy request: resource \"TPUS_PER_TPU_FAMILY\": request requires '16.0' "
        "and is short '8.0'. project has a quota of '8.0' with '8.0' available. View and manage quotas at "
        "https://console.cloud.google.com/iam-admin/quotas?usage=USED&project=p.");
  CHECK(driver.Send("GET", kGke + "/clusters/c/nodePools/big").status == 404);
  CHECK_FALSE(CreatePool(driver, TpuPool("fits", "2x4", 2)).contains("error"));
}

TEST_CASE("capacity: limits are checked where they are set: flags and the admin endpoint") {
  StartOptions options;
  options.capacity = "us-east5/v6e=8";
  auto region = MakeConfig(options);
  REQUIRE_FALSE(region);
  CHECK(region.error().message == "--capacity: expected a zone (us-east5-a), got 'us-east5' in 'us-east5/v6e'");
  options.capacity = "us-east5-a/v9=8";
  CHECK(MakeConfig(options).error().message ==
        "--capacity: expected a TPU generation (v4, v5e, v5p, v6e, tpu7x), got 'v9' in 'us-east5-a/v9'");
  options.capacity = "us-east5-a/v6e/flex=8";
  CHECK(MakeConfig(options).error().message ==
        "--capacity: expected the mode on-demand or spot, got 'flex' in 'us-east5-a/v6e/flex'");
  options.capacity = "us-east5-a/v6e=-1";
  CHECK(MakeConfig(options).error().message == "--capacity: expected a number of chips (0-1000000000), got '-1'");
  options.capacity = "us-east5-a/v6e=8";
  options.quota = "us-east5-a/v6e=8";
  CHECK(MakeConfig(options).error().message ==
        "--quota: expected a region (us-east5), got 'us-east5-a' in 'us-east5-a/v6e'");

  Driver driver;
  auto bad = driver.Send("POST", "/_emulator/capacity", json{{"chips", {{"us-east5-a/v6e", "lots"}}}});
  CHECK(bad.status == 400);
  CHECK(bad.body["error"]["message"] == "chips.us-east5-a/v6e: expected a number of chips (0-1000000000) or null");
  CHECK(driver.Send("POST", "/_emulator/capacity", json{{"gpus", json::object()}}).status == 400);
  CHECK(driver.Send("GET", "/_emulator/capacity").body == json{{"chips", json::object()}, {"quota", json::object()}});
}

const std::string kCompute = "/compute/v1/projects/p/zones/us-east5-a";

// What `gcloud compute reservations create NAME --zone us-east5-a --vm-count N --machine-type M` sends.
void Reserve(Driver& driver, const std::string& name, int vms, const std::string& machine) {
  json body = {
      {"name", name},
      {"specificReservation", {{"count", std::to_string(vms)}, {"instanceProperties", {{"machineType", machine}}}}},
      {"specificReservationRequired", true},
      {"zone", "us-east5-a"}};
  auto created = driver.Send("POST", kCompute + "/reservations", body);
  REQUIRE(created.status == 200);
  CHECK(created.body["kind"] == "compute#operation");
  driver.Advance(3s);
}

json ReservedPool(const std::string& name, const std::string& topology, int nodes, const std::string& reservation) {
  json pool = TpuPool(name, topology, nodes);
  pool["nodePool"]["config"]["reservationAffinity"] = {{"consumeReservationType", "SPECIFIC_RESERVATION"},
                                                       {"key", "compute.googleapis.com/reservation-name"},
                                                       {"values", {reservation}}};
  return pool;
}

TEST_CASE("reservations: GKE pools use a Compute reservation's VMs, and GKE says when it is missing or short") {
  Driver driver(WithCapacity("us-east5-a/v6e=0"));  // the zone has nothing outside the reservation
  Reserve(driver, "r1", 2, "ct6e-standard-4t");
  auto shown = driver.Send("GET", kCompute + "/reservations/r1").body;
  CHECK(shown["status"] == "READY");
  CHECK(shown["specificReservation"]["count"] == "2");
  CHECK(shown["specificReservation"]["inUseCount"] == "0");

  REQUIRE(driver.Send("POST", kGke + "/clusters", Cluster("c")).status == 200);
  driver.Advance(3s);
  auto missing = driver.Send("POST", kGke + "/clusters/c/nodePools", ReservedPool("m", "2x2", 1, "nope"));
  CHECK(missing.status == 404);
  CHECK(missing.body["error"]["message"] ==
        "Google Compute Engine: reservation \"nope\" not found for node pool \"m\" at zone \"us-east5-a\".");
  auto too_big = driver.Send("POST", kGke + "/clusters/c/nodePools", ReservedPool("big", "4x4", 4, "r1"));
  CHECK(too_big.status == 429);
  CHECK(too_big.body["error"]["message"] ==
        "Reservation does not have enough resources for the request: specific reservation \"r1\" is insufficient for "
        "node pool \"big\" at zone \"us-east5-a\": required 4 and short of 2 VM count of machine type "
        "ct6e-standard-4t.");

  // The shared form names the owner's project; the pool's VMs are counted as soon as it exists.
  CHECK_FALSE(CreatePool(driver, ReservedPool("fits", "2x4", 2, "projects/p/reservations/r1")).contains("error"));
  CHECK(driver.Send("GET", kCompute + "/reservations/r1").body["specificReservation"]["inUseCount"] == "2");
  CHECK(driver.Send("POST", kGke + "/clusters/c/nodePools", ReservedPool("more", "2x2", 1, "r1")).status == 429);
  auto listed = driver.Send("GET", kCompute + "/reservations").body;
  CHECK(listed["items"][0]["name"] == "r1");

  REQUIRE(driver.Send("DELETE", kGke + "/clusters/c/nodePools/fits").status == 200);
  driver.Advance(3s);
  CHECK(driver.Send("GET", kCompute + "/reservations/r1").body["specificReservation"]["inUseCount"] == "0");
  REQUIRE(driver.Send("DELETE", kCompute + "/reservations/r1").status == 200);
  driver.Advance(3s);
  CHECK(driver.Send("GET", kCompute + "/reservations/r1").status == 404);
}

TEST_CASE("reservations: Cloud TPU nodes and queued resources that name one draw on it") {
  Driver driver(WithCapacity("us-east5-a/v6e=0"));
  Reserve(driver, "r1", 1, "ct6e-standard-4t");
  // gcloud alpha compute tpus tpu-vm create --reservation: v2alpha1's schedulingConfig.reservationName.
  json node = Node("v6e-4");
  node["schedulingConfig"] = {{"reservationName", kParent + "/reservations/r1"}};
  auto created = driver.Send("POST", "/v2alpha1/" + kParent + "/nodes?nodeId=a", node);
  REQUIRE(created.status == 200);
  driver.Advance(3s);
  CHECK_FALSE(driver.Send("GET", "/v2alpha1/" + created.body["name"].get<std::string>()).body.contains("error"));
  CHECK(driver.Send("GET", kCompute + "/reservations/r1").body["specificReservation"]["inUseCount"] == "1");

  auto second = driver.Send("POST", "/v2alpha1/" + kParent + "/nodes?nodeId=b", node);
  REQUIRE(second.status == 200);
  driver.Advance(3s);
  json failed = driver.Send("GET", "/v2alpha1/" + second.body["name"].get<std::string>()).body;
  CHECK(failed["error"]["code"] == 8);
  CHECK(failed["error"]["message"].get<std::string>().rfind(
            "Insufficient reserved capacity. Contact customer support to increase your reservation.", 0) == 0);

  json queued = Queued("q", "v6e-4");
  queued["reservationName"] = kParent + "/reservations/r1";
  REQUIRE(driver.Send("POST", "/v2alpha1/" + kParent + "/queuedResources?queuedResourceId=q", queued).status == 200);
  driver.Advance(3s);
  CHECK(QueuedState(driver, "q") == "WAITING_FOR_RESOURCES");
  DeleteNode(driver, "a");
  CHECK(QueuedState(driver, "q") == "PROVISIONING");
  driver.Advance(3s);
  CHECK(QueuedState(driver, "q") == "ACTIVE");
  CHECK(driver.Send("GET", kCompute + "/reservations/r1").body["specificReservation"]["inUseCount"] == "1");
}

}  // namespace
}  // namespace tputrain::emulator
