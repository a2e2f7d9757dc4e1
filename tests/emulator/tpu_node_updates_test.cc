#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tpu_guest_attributes.h"
#include "tputrain/emulator/tpu_host_network.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kTpu = "/v2/projects/p/locations/us-east5-a";

json ReadyNode(Driver& driver, const std::string& id, const std::string& accelerator) {
  json body = {{"acceleratorType", accelerator},
               {"runtimeVersion", "v2-alpha-tpuv5"},
               {"metadata", {{"startup-script", "echo hi"}}},
               {"labels", {{"tputrain-run", "r1"}}}};
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=" + id, body).status == 200);
  driver.Advance(2s);
  return driver.Send("GET", kTpu + "/nodes/" + id).body;
}

TEST_CASE("nodes.patch: updateMask=metadata replaces the map, answers an operation, leaves the rest") {
  Driver driver;
  ReadyNode(driver, "v5p-node", "v5p-16");
  json patch = {{"metadata", {{"ssh-keys", "alice:ssh-ed25519 AAAA alice"}, {"startup-script", "echo two"}}}};
  auto op = driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=metadata&alt=json", patch);
  REQUIRE(op.status == 200);
  CHECK(op.body["done"] == false);
  CHECK(op.body["metadata"]["verb"] == "update");
  auto node = driver.Send("GET", kTpu + "/nodes/v5p-node").body;
  CHECK(node["metadata"] == patch["metadata"]);
  CHECK(node["labels"] == json{{"tputrain-run", "r1"}});
  CHECK(node["state"] == "READY");
  json endpoints = node["networkEndpoints"];
  CHECK_FALSE(endpoints[0].contains("accessConfig"));
  driver.Advance(2s);
  auto done = driver.Send("GET", "/v2/" + op.body["name"].get<std::string>()).body;
  CHECK(done["done"] == true);
  CHECK(done["response"]["@type"] == "type.googleapis.com/google.cloud.tpu.v2.Node");
  CHECK(done["response"]["metadata"] == patch["metadata"]);
  // Finishing an update does not boot the node again: same endpoints.
  CHECK(driver.Send("GET", kTpu + "/nodes/v5p-node").body["networkEndpoints"] == endpoints);
}

TEST_CASE("nodes.patch: labels and a whole Node body (gcloud sends the node it read), bad masks refused") {
  Driver driver;
  json node = ReadyNode(driver, "v5p-node", "v5p-8");
  node["labels"] = {{"team", "ml"}};
  node["metadata"]["extra"] = "x";
  REQUIRE(driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=labels", node).status == 200);
  auto after = driver.Send("GET", kTpu + "/nodes/v5p-node").body;
  CHECK(after["labels"] == json{{"team", "ml"}});
  CHECK_FALSE(after["metadata"].contains("extra"));  // not in the mask: unchanged

  CHECK(driver.Send("PATCH", kTpu + "/nodes/v5p-node", json{{"labels", json::object()}}).status == 400);
  auto bad_path = driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=acceleratorType", node);
  CHECK(bad_path.status == 400);
  CHECK(bad_path.body["error"]["message"].get<std::string>().find("acceleratorType") != std::string::npos);
  CHECK(driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=labels", json{{"labels", {{"Bad", "x"}}}}).status ==
        400);
  CHECK(driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=metadata", json{{"bogus", 1}}).status == 400);
  CHECK(driver.Send("PATCH", kTpu + "/nodes/missing?updateMask=metadata", json::object()).status == 404);
  // An empty map in the body clears it, as a field mask means.
  REQUIRE(driver.Send("PATCH", kTpu + "/nodes/v5p-node?updateMask=labels", json::object()).status == 200);
  CHECK_FALSE(driver.Send("GET", kTpu + "/nodes/v5p-node").body.contains("labels"));
}

TEST_CASE("nodes.getGuestAttributes: one entry per worker in worker order, filtered by queryPath") {
  Driver driver;
  ReadyNode(driver, "v5p-node", "v5p-16");
  std::string call = kTpu + "/nodes/v5p-node:getGuestAttributes";
  auto empty = driver.Send("POST", call, json{{"workerIds", {""}}});
  REQUIRE(empty.status == 200);
  REQUIRE(empty.body["guestAttributes"].size() == 2);
  CHECK(empty.body["guestAttributes"][0] == json{{"queryValue", {{"items", json::array()}}}});

  // What the hosts' metadata server stores (tested through it in the netns integration test).
  SECTION("written attributes") {
    json node = driver.emulator().State()["tpuNodes"]["projects/p/locations/us-east5-a/nodes/v5p-node"];
    StoreGuestAttribute(node, 1, "tputrain", "worker", "1");
    StoreGuestAttribute(node, 1, "hostkeys", "ssh-ed25519", "AAAA");
    StoreGuestAttribute(node, 0, "tputrain", "worker", "0");
    CHECK(GuestAttributeItems(node, 1, "") ==
          json::array({{{"namespace", "hostkeys"}, {"key", "ssh-ed25519"}, {"value", "AAAA"}},
                       {{"namespace", "tputrain"}, {"key", "worker"}, {"value", "1"}}}));
    CHECK(GuestAttributeItems(node, 1, "tputrain/").size() == 1);
    CHECK(GuestAttributeItems(node, 1, "/tputrain").size() == 1);
    CHECK(GuestAttributeItems(node, 1, "tputrain/worker")[0]["value"] == "1");
    CHECK(GuestAttributeItems(node, 1, "tputrain/other").empty());
    CHECK(FindGuestAttribute(node, 0, "tputrain", "worker") == "0");
    CHECK_FALSE(FindGuestAttribute(node, 2, "tputrain", "worker"));
  }
  auto one = driver.Send("POST", call, json{{"workerIds", {"1"}}, {"queryPath", "tputrain/"}});
  REQUIRE(one.body["guestAttributes"].size() == 1);
  CHECK(one.body["guestAttributes"][0]["queryPath"] == "tputrain/");
  CHECK(driver.Send("POST", call, json{{"workerIds", {"2"}}}).status == 400);
  CHECK(driver.Send("POST", call, json{{"workerIds", {"-1"}}}).status == 400);
  CHECK(driver.Send("POST", call, json{{"workers", {"0"}}}).status == 400);
  CHECK(driver.Send("POST", kTpu + "/nodes/missing:getGuestAttributes", json::object()).status == 404);
}

TEST_CASE("--tpu-hosts netns: READY nodes get addresses on the emulator's host network, unique per host") {
  EmulatorConfig config;
  config.tpu_hosts = TpuHostMode::kNetns;
  Driver driver(config);
  json first = ReadyNode(driver, "a", "v5p-16");
  json second = ReadyNode(driver, "b", "v5p-8");
  CHECK(first["networkEndpoints"] == json::array({{{"ipAddress", TpuHostAddress(0)}, {"port", 8470}},
                                                  {{"ipAddress", TpuHostAddress(1)}, {"port", 8470}}}));
  CHECK(second["networkEndpoints"][0]["ipAddress"] == TpuHostAddress(2));
  CHECK(TpuHostAddress(0) == "10.213.1.1");
  CHECK(TpuHostAddress(249) == "10.213.1.250");
  CHECK(TpuHostAddress(250) == "10.213.2.1");
}

}  // namespace
}  // namespace tputrain::emulator
