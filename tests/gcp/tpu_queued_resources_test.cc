#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::gcp::tpu {
namespace {

using nlohmann::json;

NodeSpec V5p16() {
  NodeSpec spec;
  spec.accelerator_type = "v5p-16";
  spec.runtime_version = "v2-alpha-tpuv5";
  spec.labels = {{"tputrain-run", "r1"}};
  return spec;
}

TEST_CASE("multislice: one nodeSpec with multisliceParams {nodeCount, nodeIdPrefix = the id}, id in the query") {
  testing::FakeTransport transport;
  Client client(transport, "https://tpu.googleapis.com/");
  const QueuedResourceRef ref{"p", "us-east5-a", "ms"};
  const auto request = client.BuildCreateMultislice(ref, V5p16(), 2);
  CHECK(request.method == "POST");
  CHECK(request.url ==
        "https://tpu.googleapis.com/v2/projects/p/locations/us-east5-a/queuedResources?queuedResourceId=ms");
  const json body = json::parse(request.body);
  REQUIRE(body["tpu"]["nodeSpec"].size() == 1);
  const json& spec = body["tpu"]["nodeSpec"][0];
  CHECK(spec["parent"] == "projects/p/locations/us-east5-a");
  CHECK(spec["multisliceParams"] == json{{"nodeCount", 2}, {"nodeIdPrefix", "ms"}});
  CHECK_FALSE(spec.contains("nodeId"));
  CHECK(spec["node"]["acceleratorType"] == "v5p-16");
  CHECK(spec["node"]["labels"]["tputrain-run"] == "r1");
  CHECK_FALSE(body.contains("spot"));

  CHECK(client.BuildDeleteQueuedResource(ref, true).url ==
        "https://tpu.googleapis.com/v2/projects/p/locations/us-east5-a/queuedResources/ms?force=true");
  CHECK(client.BuildDeleteQueuedResource(ref, false).url ==
        "https://tpu.googleapis.com/v2/projects/p/locations/us-east5-a/queuedResources/ms");
}

TEST_CASE("a queued resource read: state enum, failure message, node ids in slice order, template labels") {
  auto resource = QueuedResourceFromJson(json::parse(R"({
    "name": "projects/p/locations/z/queuedResources/ms",
    "state": {"state": "FAILED", "failedData": {"error": {"code": 8, "message": "no capacity"}}},
    "tpu": {"nodeSpec": [{"parent": "projects/p/locations/z",
                          "node": {"acceleratorType": "v5p-16", "labels": {"tputrain-run": "r1"}},
                          "multisliceParams": {"nodeCount": 3, "nodeIdPrefix": "ms"}}]}})"));
  CHECK(resource.state == QueuedResourceState::kFailed);
  CHECK(resource.failure == "no capacity");
  CHECK(resource.node_ids == std::vector<std::string>{"ms-0", "ms-1", "ms-2"});
  CHECK(resource.labels.at("tputrain-run") == "r1");
  CHECK(QueuedResourceFromJson(json{{"state", {{"state", "SOMETHING_NEW"}}}}).state ==
        QueuedResourceState::kUnspecified);
  CHECK(QueuedResourceStateName(QueuedResourceState::kWaitingForResources) == "WAITING_FOR_RESOURCES");
  CHECK(QueuedResourceFromJson(json::parse(R"({"tpu": {"nodeSpec": [{"nodeId": "one"}]}})")).node_ids ==
        std::vector<std::string>{"one"});
}

TEST_CASE("nodes.patch of metadata: the whole map, updateMask=metadata, safe to repeat") {
  testing::FakeTransport transport;
  transport.On("PATCH", "/nodes/ms-1", {testing::JsonReply(200, R"({"name": "projects/p/locations/z/operations/o"})")});
  Client client(transport, "https://tpu.googleapis.com/");
  auto op = client.PatchNodeMetadata({"p", "z", "ms-1"}, {{"a", "1"}, {"tputrain-ray-head", "10.0.0.2"}});
  REQUIRE(op);
  CHECK(op->name == "projects/p/locations/z/operations/o");
  const auto sent = transport.requests().at(0);
  CHECK(sent.url == "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/ms-1?updateMask=metadata");
  CHECK(json::parse(sent.body) == json{{"metadata", {{"a", "1"}, {"tputrain-ray-head", "10.0.0.2"}}}});
  CHECK(sent.idempotent);
}

}  // namespace
}  // namespace tputrain::gcp::tpu
