#include <unistd.h>

#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kTpu = "/v2/projects/p/locations/us-east5-a";

json TpuNode(const std::string& accelerator) {
  return {{"acceleratorType", accelerator},
          {"runtimeVersion", "v2-alpha-tpuv5"},
          {"metadata", json::object()},
          {"networkConfig", {{"enableExternalIps", true}, {"network", "default"}}},
          {"schedulingConfig", {{"preemptible", false}, {"reserved", false}, {"spot", false}}},
          {"shieldedInstanceConfig", {{"enableSecureBoot", false}}}};
}

TEST_CASE("a TPU VM: the operation starts done:false, then the node is READY with one endpoint per host") {
  Driver driver;
  auto op = driver.Send("POST", kTpu + "/nodes?alt=json&nodeId=v5p-node", TpuNode("v5p-16"));
  REQUIRE(op.status == 200);
  CHECK(op.body["done"] == false);
  CHECK(op.body["metadata"]["verb"] == "create");
  std::string op_name = op.body["name"];
  CHECK(op_name.rfind("projects/p/locations/us-east5-a/operations/", 0) == 0);
  CHECK(driver.Send("GET", kTpu + "/nodes/v5p-node").body["state"] == "CREATING");
  driver.Advance(2s);
  auto done = driver.Send("GET", "/v2/" + op_name);
  CHECK(done.body["done"] == true);
  CHECK(done.body["response"]["@type"] == "type.googleapis.com/google.cloud.tpu.v2.Node");
  auto node = driver.Send("GET", kTpu + "/nodes/v5p-node");
  CHECK(node.body["state"] == "READY");
  CHECK(node.body["networkEndpoints"].size() == 2);  // v5p-16: 8 chips, 4 per host
  // enableExternalIps (gcloud's default): each endpoint has an external address, as ssh needs.
  CHECK(node.body["networkEndpoints"][1]["accessConfig"]["externalIp"] == "203.0.113.11");
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=v5p-node", TpuNode("v5p-16")).status == 409);
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=other", TpuNode("v5p-7")).status == 400);
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=other", json{{"acceleratorType", "v5p-8"}}).status == 400);

  auto deleting = driver.Send("DELETE", kTpu + "/nodes/v5p-node");
  CHECK(deleting.body["done"] == false);
  driver.Advance(2s);
  CHECK(driver.Send("GET", kTpu + "/nodes/v5p-node").status == 404);
  CHECK(driver.Send("GET", "/v2/" + deleting.body["name"].get<std::string>()).body["done"] == true);
}

TEST_CASE("buckets: insert, objects, non-empty delete is 409, IAM with etags; legacy error shape") {
  Driver driver;
  auto bucket = driver.Send("POST", "/storage/v1/b?alt=json&project=p&projection=noAcl&enableObjectRetention=False",
                            json{{"name", "tputrain-ckpt"}, {"location", "us-east5"}, {"storageClass", "standard"}});
  REQUIRE(bucket.status == 200);
  CHECK(bucket.body["location"] == "US-EAST5");
  CHECK(bucket.body["storageClass"] == "STANDARD");
  CHECK(bucket.body["projectNumber"] == std::to_string(ProjectNumber("p")));
  CHECK(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "tputrain-ckpt"}}).status == 409);
  auto missing_name = driver.Send("POST", "/storage/v1/b?project=p", json{{"location", "US"}});
  CHECK(missing_name.status == 400);
  CHECK(missing_name.body["error"]["errors"][0]["domain"] == "global");
  CHECK(driver.Send("POST", "/storage/v1/b", json{{"name", "other-bucket"}}).status == 400);

  auto object =
      driver.Send("POST", "/upload/storage/v1/b/tputrain-ckpt/o?uploadType=media&name=ckpt/0/state", json("hello"));
  REQUIRE(object.status == 200);
  CHECK(object.body["size"] == "5");
  auto busy = driver.Send("DELETE", "/storage/v1/b/tputrain-ckpt");
  CHECK(busy.status == 409);
  CHECK(busy.body["error"]["errors"][0]["reason"] == "conflict");
  auto listing = driver.Send("GET", "/storage/v1/b/tputrain-ckpt/o?fields=items/name,nextPageToken&versions=True");
  REQUIRE(listing.body["items"].size() == 1);
  CHECK(listing.body["items"][0] == json{{"name", "ckpt/0/state"}});
  std::string generation = object.body["generation"];
  CHECK(driver.Send("DELETE", "/storage/v1/b/tputrain-ckpt/o/ckpt/0/state?generation=1").status == 404);
  CHECK(driver.Send("DELETE", "/storage/v1/b/tputrain-ckpt/o/ckpt/0/state?generation=" + generation).status == 204);
  CHECK(driver.Send("GET", "/storage/v1/b/tputrain-ckpt/storageLayout").status == 200);
  CHECK(driver.Send("GET", "/storage/v1/b/tputrain-ckpt/managedFolders").status == 200);

  auto policy = driver.Send("GET", "/storage/v1/b/tputrain-ckpt/iam?fields=bindings,etag");
  CHECK(policy.body["etag"] == "CAE=");
  CHECK_FALSE(policy.body.contains("kind"));
  json updated = policy.body;
  updated["bindings"].push_back({{"role", "roles/storage.objectUser"}, {"members", {"principal://x"}}});
  auto set = driver.Send("PUT", "/storage/v1/b/tputrain-ckpt/iam", updated);
  CHECK(set.status == 200);
  CHECK(set.body["etag"] != "CAE=");
  CHECK(driver.Send("PUT", "/storage/v1/b/tputrain-ckpt/iam", updated).status == 412);

  CHECK(driver.Send("DELETE", "/storage/v1/b/tputrain-ckpt").status == 204);
  CHECK(driver.Send("GET", "/storage/v1/b/tputrain-ckpt").body["error"]["code"] == 404);
}

TEST_CASE("IAM and Resource Manager: service accounts, policies with etags, stale etag is 409 ABORTED") {
  Driver driver;
  json request = {{"accountId", "jetstream-pathways"}, {"serviceAccount", json::object()}};
  auto account = driver.Send("POST", "/v1/projects/p/serviceAccounts", request);
  REQUIRE(account.status == 200);
  CHECK(account.body["email"] == "jetstream-pathways@p.iam.gserviceaccount.com");
  auto duplicate = driver.Send("POST", "/v1/projects/p/serviceAccounts", request);
  CHECK(duplicate.status == 409);
  CHECK(duplicate.body["error"]["status"] == "ALREADY_EXISTS");
  CHECK(driver.Send("POST", "/v1/projects/p/serviceAccounts", json{{"serviceAccount", json::object()}}).status == 400);
  CHECK(driver.Send("POST", "/v1/projects/p/serviceAccounts", json{{"accountId", "ab"}}).status == 400);
  std::string sa = "/v1/projects/-/serviceAccounts/jetstream-pathways@p.iam.gserviceaccount.com";
  CHECK(driver.Send("GET", sa).status == 200);
  auto empty = driver.Send("POST", sa + ":getIamPolicy?options.requestedPolicyVersion=3");
  CHECK(empty.body == json{{"version", 1}, {"etag", "ACAB"}});

  auto project = driver.Send("GET", "/v1/projects/p");
  CHECK(project.body["projectNumber"] == std::to_string(ProjectNumber("p")));
  auto policy = driver.Send("POST", "/v1/projects/p:getIamPolicy", json{{"options", {{"requestedPolicyVersion", 3}}}});
  json updated = policy.body;
  updated["bindings"].push_back(
      {{"role", "roles/storage.objectUser"}, {"members", {"serviceAccount:x@p.iam.gserviceaccount.com"}}});
  auto first = driver.Send("POST", "/v1/projects/p:setIamPolicy", json{{"policy", updated}});
  CHECK(first.status == 200);
  CHECK(first.body["bindings"].size() == 2);
  auto stale = driver.Send("POST", "/v1/projects/p:setIamPolicy", json{{"policy", updated}});
  CHECK(stale.status == 409);
  CHECK(stale.body["error"]["status"] == "ABORTED");

  auto service = driver.Send("GET", "/v1/projects/p/services/container.googleapis.com?alt=json");
  CHECK(service.body["state"] == "ENABLED");
  CHECK(driver.Send("DELETE", sa).status == 200);
  CHECK(driver.Send("GET", sa).status == 404);
}

// Fields tputrain sends that Google refuses: the emulator refuses them too (400), so a client bug
// fails a test rather than a user's create.
TEST_CASE("what Google refuses in labels, node counts, bucket names and roles, the emulator refuses") {
  Driver driver;
  const std::string zone = "/v1/projects/p/locations/us-east5-b";
  auto cluster = [](json labels, json count) {
    json pool = {{"name", "default-pool"}, {"initialNodeCount", count}};
    return json{{"cluster", {{"name", "c"}, {"resourceLabels", labels}, {"nodePools", {pool}}}},
                {"parent", "projects/p/locations/us-east5-b"}};
  };
  auto negative = driver.Send("POST", zone + "/clusters", cluster(json::object(), -3));
  CHECK(negative.status == 400);
  CHECK(negative.body["error"]["message"].get<std::string>().find("initial_node_count") != std::string::npos);
  CHECK(driver.Send("POST", zone + "/clusters", cluster(json::object(), "-3")).status == 400);
  for (const json& labels : {json{{"Team", "ml"}}, json{{"team", "ML"}}, json{{"1team", "x"}}, json{{"team", "a.b"}}}) {
    INFO(labels.dump());
    auto refused = driver.Send("POST", zone + "/clusters", cluster(labels, 3));
    CHECK(refused.status == 400);
    CHECK(refused.body["error"]["status"] == "INVALID_ARGUMENT");
  }
  REQUIRE(driver.Send("POST", zone + "/clusters", cluster(json{{"tputrain-run", "r-1"}}, 3)).status == 200);

  json tpu = TpuNode("v5litepod-8");
  tpu["labels"] = {{"Owner", "x"}};
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=vm", tpu).status == 400);

  for (const char* name : {"goog-ckpt", "my-google-ckpt", "192.168.5.4"}) {
    INFO(name);
    auto reserved = driver.Send("POST", "/storage/v1/b?project=p", json{{"name", name}});
    CHECK(reserved.status == 400);
    CHECK(reserved.body["error"]["errors"][0]["reason"] == "invalid");
  }
  CHECK(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "ckpt"}, {"labels", {{"A", "b"}}}}).status == 400);

  auto policy = driver.Send("POST", "/v1/projects/p:getIamPolicy", json::object());
  json bad = policy.body;
  bad["bindings"] = {{{"role", "storage.objectUser"}, {"members", {"user:a@example.com"}}}};
  auto refused = driver.Send("POST", "/v1/projects/p:setIamPolicy", json{{"policy", bad}});
  CHECK(refused.status == 400);
  CHECK(refused.body["error"]["message"].get<std::string>().find("Role (storage.objectUser)") != std::string::npos);
}

TEST_CASE("faults: immediate errors, stockout and stuck operations, dropped connections") {
  auto config_with = [](const std::string& spec) {
    EmulatorConfig config;
    config.faults = *ParseFaults(spec, Emulator::MethodIds(), Emulator::OperationMethodIds());
    return config;
  };
  json pool = {{"nodePool",
                {{"name", "v6e"},
                 {"initialNodeCount", 4},
                 {"config", {{"machineType", "ct6e-standard-4t"}}},
                 {"placementPolicy", {{"tpuTopology", "4x4"}}}}}};
  json cluster = {{"cluster", {{"name", "c"}}}};
  const std::string zone = "/v1/projects/p/locations/us-east5-b";

  SECTION("RESOURCE_EXHAUSTED on node-pool create") {
    Driver driver(config_with("nodePools.create=RESOURCE_EXHAUSTED"));
    driver.Send("POST", zone + "/clusters", cluster);
    driver.Advance(2s);
    auto reply = driver.Send("POST", zone + "/clusters/c/nodePools", pool);
    CHECK(reply.status == 429);
    CHECK(reply.body["error"]["status"] == "RESOURCE_EXHAUSTED");
  }
  SECTION("a stockout ends the operation with Google's message and marks the pool") {
    Driver driver(config_with("nodePools.create=stockout"));
    driver.Send("POST", zone + "/clusters", cluster);
    driver.Advance(2s);
    auto op = driver.Send("POST", zone + "/clusters/c/nodePools", pool);
    driver.Advance(2s);
    auto done = driver.Send("GET", zone + "/operations/" + op.body["name"].get<std::string>());
    CHECK(done.body["status"] == "DONE");
    CHECK(done.body["error"]["code"] == 8);
    CHECK(done.body["statusMessage"].get<std::string>().find("Not enough resources") != std::string::npos);
    CHECK(driver.Send("GET", zone + "/clusters/c/nodePools/v6e").body["conditions"][0]["code"] == "GCE_STOCKOUT");
  }
  SECTION("a TPU stockout is an LRO error with code 8") {
    Driver driver(config_with("nodes.create=stockout"));
    auto op = driver.Send("POST", kTpu + "/nodes?nodeId=n", TpuNode("v5p-8"));
    driver.Advance(2s);
    auto done = driver.Send("GET", "/v2/" + op.body["name"].get<std::string>());
    CHECK(done.body["done"] == true);
    CHECK(done.body["error"]["code"] == 8);
    CHECK(done.body["error"]["message"].get<std::string>().find("There is no more capacity in the zone") == 0);
    CHECK(driver.Send("GET", kTpu + "/nodes/n").status == 404);
  }
  SECTION("a stuck operation never finishes") {
    Driver driver(config_with("clusters.create=stuck"));
    auto op = driver.Send("POST", zone + "/clusters", cluster);
    driver.Advance(1h);
    CHECK(driver.Send("GET", zone + "/operations/" + op.body["name"].get<std::string>()).body["status"] == "RUNNING");
  }
  SECTION("with stuck_for, a stuck operation runs that long, then finishes") {
    EmulatorConfig config = config_with("clusters.create=stuck@nth:1,nodes.create=stuck");
    config.stuck_for = 30s;
    Driver driver(config);
    auto op = driver.Send("POST", zone + "/clusters", cluster);
    auto tpu_op = driver.Send("POST", kTpu + "/nodes?nodeId=n", TpuNode("v5p-8"));
    const std::string op_path = zone + "/operations/" + op.body["name"].get<std::string>();
    const std::string tpu_op_path = "/v2/" + tpu_op.body["name"].get<std::string>();
    driver.Advance(29s);
    CHECK(driver.Send("GET", op_path).body["status"] == "RUNNING");
    CHECK(driver.Send("GET", tpu_op_path).body["done"] == false);
    driver.Advance(1s);
    CHECK(driver.Send("GET", op_path).body["status"] == "DONE");
    CHECK(driver.Send("GET", zone + "/clusters/c").body["status"] == "RUNNING");
    CHECK(driver.Send("GET", tpu_op_path).body["done"] == true);
  }
  SECTION("503 on the 2nd request; drop and lose-reply close the connection") {
    Driver driver(config_with("*=503@nth:2,buckets.insert=drop@nth:1,nodes.create=lose-reply"));
    CHECK(driver.Send("GET", "/v1/projects/p").status == 200);
    auto unavailable = driver.Send("GET", "/v1/projects/p");
    CHECK(unavailable.status == 503);
    CHECK(unavailable.body["error"]["status"] == "UNAVAILABLE");
    CHECK(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "dropped"}}).dropped);
    CHECK(driver.Send("GET", "/storage/v1/b/dropped").status == 404);  // never handled
    auto lost = driver.Send("POST", kTpu + "/nodes?nodeId=n", TpuNode("v5p-8"));
    CHECK(lost.dropped);
    CHECK(driver.emulator().State()["tpuNodes"].size() == 1);  // handled, reply lost
  }
}

TEST_CASE("--state-file keeps every resource across a restart; admin endpoints dump, log and reset") {
  char dir_template[] = "/tmp/tputrain-emulator-state-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  EmulatorConfig config;
  config.state_file = std::string(dir_template) + "/state.json";
  {
    Driver driver(config);
    REQUIRE(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "kept-bucket"}}).status == 200);
    REQUIRE(driver.Send("POST", "/v1/projects/p/locations/us-east5-b/clusters", json{{"cluster", {{"name", "kept"}}}})
                .status == 200);
    auto log = driver.Send("GET", "/_emulator/requests", nullptr, false);
    REQUIRE(log.body["requests"].size() == 2);
    CHECK(log.body["requests"][0]["method"] == "POST");
    CHECK(log.body["requests"][0]["body"]["name"] == "kept-bucket");
    CHECK(log.body["requests"][0]["end"] >= log.body["requests"][0]["start"]);
  }
  {
    Driver restarted(config);
    auto state = restarted.Send("GET", "/_emulator/state", nullptr, false);
    CHECK(state.body["buckets"].contains("kept-bucket"));
    CHECK(state.body["clusters"].contains("projects/p/locations/us-east5-b/clusters/kept"));
    CHECK(restarted.Send("POST", "/_emulator/reset", nullptr, false).status == 200);
    CHECK(restarted.Send("GET", "/_emulator/state", nullptr, false).body["buckets"].empty());
  }
  Driver after_reset(config);
  CHECK(after_reset.emulator().State()["clusters"].empty());
  std::remove(config.state_file.c_str());
  rmdir(dir_template);
}

}  // namespace
}  // namespace tputrain::emulator
