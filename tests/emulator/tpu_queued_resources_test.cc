#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kParent = "projects/p/locations/us-east5-a";
const std::string kTpu = "/v2/" + kParent;

// What `gcloud compute tpus queued-resources create NAME --node-count N --node-prefix NAME` sends.
json MultisliceRequest(int count, const std::string& prefix) {
  json spec = {{"parent", kParent},
               {"node", {{"acceleratorType", "v5p-16"}, {"runtimeVersion", "v2-alpha-tpuv5"}}},
               {"multisliceParams", {{"nodeCount", count}, {"nodeIdPrefix", prefix}}}};
  return {{"tpu", {{"nodeSpec", json::array({spec})}}}};
}

TEST_CASE("queuedResources: multisliceParams makes nodeCount nodes PREFIX-0.., each its own READY slice") {
  Driver driver;
  auto created = driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=ms", MultisliceRequest(2, "ms"));
  REQUIRE(created.status == 200);
  CHECK(driver.Send("GET", kTpu + "/queuedResources/ms").body["state"]["state"] == "ACCEPTED");
  CHECK(driver.Send("GET", kTpu + "/nodes/ms-0").status == 404);
  driver.Advance(10s);
  auto resource = driver.Send("GET", kTpu + "/queuedResources/ms").body;
  CHECK(resource["state"]["state"] == "ACTIVE");
  auto first = driver.Send("GET", kTpu + "/nodes/ms-0").body;
  auto second = driver.Send("GET", kTpu + "/nodes/ms-1").body;
  CHECK(first["state"] == "READY");
  CHECK(second["state"] == "READY");
  CHECK(first["queuedResource"] == kParent + "/queuedResources/ms");
  REQUIRE(first["networkEndpoints"].size() == 2);  // v5p-16: two hosts per slice
  REQUIRE(second["networkEndpoints"].size() == 2);
  CHECK_FALSE(first["networkEndpoints"][0].contains("accessConfig"));  // no enableExternalIps asked
  CHECK(driver.Send("GET", kTpu + "/nodes/ms-2").status == 404);

  // Without force an ACTIVE one is refused; with it, its nodes go DELETING at once, then all of it.
  CHECK(driver.Send("DELETE", kTpu + "/queuedResources/ms").status == 400);
  REQUIRE(driver.Send("DELETE", kTpu + "/queuedResources/ms?force=true").status == 200);
  CHECK(driver.Send("GET", kTpu + "/nodes/ms-1").body["state"] == "DELETING");
  driver.Advance(10s);
  CHECK(driver.Send("GET", kTpu + "/queuedResources/ms").status == 404);
  CHECK(driver.Send("GET", kTpu + "/nodes/ms-0").status == 404);
  CHECK(driver.Send("GET", kTpu + "/nodes/ms-1").status == 404);
}

TEST_CASE("queuedResources: a nodeSpec names its node(s) one way, with a valid count, and no existing node") {
  Driver driver;
  auto both = MultisliceRequest(2, "ms");
  both["tpu"]["nodeSpec"][0]["nodeId"] = "ms";
  CHECK(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=a", both).status == 400);
  auto neither = MultisliceRequest(2, "ms");
  neither["tpu"]["nodeSpec"][0].erase("multisliceParams");
  CHECK(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=b", neither).status == 400);
  auto one = driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=c", MultisliceRequest(1, "ms"));
  CHECK(one.status == 400);
  CHECK(one.body["error"]["message"].get<std::string>().find("node_count") != std::string::npos);
  CHECK(driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=d", MultisliceRequest(2, "Bad_")).status == 400);

  json node = {{"acceleratorType", "v5p-8"}, {"runtimeVersion", "v2-alpha-tpuv5"}};
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=taken-1", node).status == 200);
  auto clash = driver.Send("POST", kTpu + "/queuedResources?queuedResourceId=e", MultisliceRequest(2, "taken"));
  CHECK(clash.status == 409);
}

}  // namespace
}  // namespace tputrain::emulator
