#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::gcp::tpu {
namespace {

TEST_CASE("getGuestAttributes: a POST on the node's :getGuestAttributes, every worker's values read") {
  testing::FakeTransport transport;
  transport.On("POST", ":getGuestAttributes", {testing::JsonReply(200, R"({"guestAttributes": [
      {"queryPath": "tputrain/", "workerId": "0",
       "queryValue": {"items": [{"namespace": "tputrain", "key": "ray-state", "value": "ready"}]}},
      {"queryPath": "tputrain/", "workerId": "1",
       "queryValue": {"items": [{"namespace": "tputrain", "key": "ray-state", "value": "waiting-for-head"},
                                {"namespace": "tputrain", "key": "ray-message", "value": "head 10.0.0.2"}]}},
      {"queryPath": "tputrain/", "workerId": "2", "queryValue": {}}]})")});
  Client client(transport, "https://tpu.googleapis.com/");
  auto values = client.GetGuestAttributes({"p", "us-east5-a", "ray tpu"}, "tputrain/");
  REQUIRE(values);
  REQUIRE(values->size() == 3);
  CHECK((*values)[0].worker_id == "0");
  CHECK((*values)[0].ns == "tputrain");
  CHECK((*values)[0].key == "ray-state");
  CHECK((*values)[0].value == "ready");
  CHECK((*values)[2].value == "head 10.0.0.2");
  const auto sent = transport.requests().at(0);
  CHECK(sent.url == "https://tpu.googleapis.com/v2/projects/p/locations/us-east5-a/nodes/ray%20tpu:getGuestAttributes");
  CHECK(nlohmann::json::parse(sent.body) == nlohmann::json{{"queryPath", "tputrain/"}});
  CHECK(sent.idempotent);
  CHECK(sent.reads_only);  // a dry run sends it
}

TEST_CASE("guest attributes without workerId (tpu v2's shape): the worker is the answer's position") {
  auto values = GuestAttributesFromJson(nlohmann::json::parse(R"({"guestAttributes": [
      {"queryPath": "tputrain/", "queryValue": {"items": [{"namespace": "tputrain", "key": "k", "value": "a"}]}},
      {"queryPath": "tputrain/", "queryValue": {"items": [{"namespace": "tputrain", "key": "k", "value": "b"}]}}]})"));
  REQUIRE(values.size() == 2);
  CHECK(values[0].worker_id == "0");
  CHECK(values[1].worker_id == "1");
  CHECK(values[1].value == "b");
}

TEST_CASE("guest attributes of a malformed answer are skipped, not guessed") {
  auto values = GuestAttributesFromJson(nlohmann::json::parse(
      R"({"guestAttributes": [7, {"workerId": "0", "queryValue": {"items": [3, {"key": "k", "value": "v"}]}}]})"));
  REQUIRE(values.size() == 1);
  CHECK(values[0].key == "k");
  CHECK(values[0].ns.empty());
  CHECK(GuestAttributesFromJson(nlohmann::json::object()).empty());
}

}  // namespace
}  // namespace tputrain::gcp::tpu
