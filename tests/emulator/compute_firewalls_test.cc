#include <catch2/catch.hpp>

#include "compute_batch.h"
#include "emulator/emulator_test_util.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kGlobal = "/compute/v1/projects/p/global/";

// What `gcloud compute firewall-rules create allow-iap-ray --network default --direction INGRESS
// --allow tcp:8265 --source-ranges 35.235.240.0/20` sends.
json IapRule() {
  return {{"allowed", {{{"IPProtocol", "tcp"}, {"ports", {"8265"}}}}},
          {"direction", "INGRESS"},
          {"name", "allow-iap-ray"},
          {"network", "https://compute.googleapis.com/compute/v1/projects/p/global/networks/default"},
          {"sourceRanges", {"35.235.240.0/20"}}};
}

TEST_CASE("compute firewalls: insert starts a RUNNING compute#operation, DONE after the latency; get, list") {
  Driver driver;
  auto op = driver.Send("POST", kGlobal + "firewalls", IapRule());
  REQUIRE(op.status == 200);
  CHECK(op.body["kind"] == "compute#operation");
  CHECK(op.body["operationType"] == "insert");
  CHECK(op.body["status"] == "RUNNING");
  CHECK(op.body["targetLink"].get<std::string>().find("/compute/v1/projects/p/global/firewalls/allow-iap-ray") !=
        std::string::npos);
  const std::string name = op.body["name"];
  CHECK(op.body["selfLink"].get<std::string>().find("/global/operations/" + name) != std::string::npos);
  CHECK(driver.Send("GET", kGlobal + "operations/" + name).body["status"] == "RUNNING");
  driver.Advance(3s);
  auto waited = driver.Send("POST", kGlobal + "operations/" + name + "/wait");
  CHECK(waited.body["status"] == "DONE");
  CHECK(waited.body["progress"] == 100);

  auto rule = driver.Send("GET", kGlobal + "firewalls/allow-iap-ray").body;
  CHECK(rule["kind"] == "compute#firewall");
  CHECK(rule["priority"] == 1000);
  CHECK(rule["disabled"] == false);
  CHECK(rule["network"].get<std::string>().ends_with("/compute/v1/projects/p/global/networks/default"));
  CHECK(rule["sourceRanges"] == json::array({"35.235.240.0/20"}));
  auto list = driver.Send("GET", kGlobal + "firewalls").body;
  CHECK(list["kind"] == "compute#firewallList");
  REQUIRE(list["items"].size() == 1);
  CHECK(driver.Send("GET", "/compute/v1/projects/other/global/firewalls").body.contains("items") == false);
}

TEST_CASE("compute firewalls: Compute's legacy errors for duplicates, bad names, bad bodies and missing rules") {
  Driver driver;
  REQUIRE(driver.Send("POST", kGlobal + "firewalls", IapRule()).status == 200);
  auto again = driver.Send("POST", kGlobal + "firewalls", IapRule());
  CHECK(again.status == 409);
  CHECK(again.body["error"]["errors"][0]["reason"] == "alreadyExists");
  CHECK(again.body["error"]["message"] == "The resource 'projects/p/global/firewalls/allow-iap-ray' already exists");

  json bad = IapRule();
  bad["name"] = "Bad_Name";
  auto named = driver.Send("POST", kGlobal + "firewalls", bad);
  CHECK(named.status == 400);
  CHECK(named.body["error"]["errors"][0]["reason"] == "invalid");

  json neither = IapRule();
  neither["name"] = "neither";
  neither.erase("allowed");
  CHECK(driver.Send("POST", kGlobal + "firewalls", neither).status == 400);
  json unknown = IapRule();
  unknown["name"] = "unknown";
  unknown["labels"] = {{"a", "b"}};  // firewalls have no labels
  CHECK(driver.Send("POST", kGlobal + "firewalls", unknown).status == 400);
  json range = IapRule();
  range["name"] = "range";
  range["sourceRanges"] = {"35.235.240.0/twenty"};
  CHECK(driver.Send("POST", kGlobal + "firewalls", range).status == 400);
  json direction = IapRule();
  direction["name"] = "direction";
  direction["direction"] = "SIDEWAYS";
  CHECK(driver.Send("POST", kGlobal + "firewalls", direction).status == 400);

  auto missing = driver.Send("GET", kGlobal + "firewalls/nope");
  CHECK(missing.status == 404);
  CHECK(missing.body["error"]["errors"][0]["reason"] == "notFound");
  CHECK(missing.body["error"]["message"] == "The resource 'projects/p/global/firewalls/nope' was not found");
  CHECK(driver.Send("DELETE", kGlobal + "firewalls/nope").status == 404);
  CHECK(driver.Send("GET", kGlobal + "operations/nope").status == 404);
  auto unauthenticated = driver.Send("GET", kGlobal + "firewalls", nullptr, false);
  CHECK(unauthenticated.status == 401);
  CHECK(unauthenticated.body["error"].contains("errors"));
}

TEST_CASE("compute firewalls: defaults an ingress rule with no source to 0.0.0.0/0; delete removes it when done") {
  Driver driver;
  json open = {{"name", "open"}, {"allowed", {{{"IPProtocol", "all"}}}}};
  REQUIRE(driver.Send("POST", kGlobal + "firewalls", open).status == 200);
  auto rule = driver.Send("GET", kGlobal + "firewalls/open").body;
  CHECK(rule["sourceRanges"] == json::array({"0.0.0.0/0"}));
  CHECK(rule["direction"] == "INGRESS");
  CHECK(rule["network"].get<std::string>().ends_with("projects/p/global/networks/default"));
  driver.Advance(3s);
  auto op = driver.Send("DELETE", kGlobal + "firewalls/open");
  REQUIRE(op.status == 200);
  CHECK(op.body["operationType"] == "delete");
  CHECK(driver.Send("GET", kGlobal + "firewalls/open").status == 200);  // until the operation is done
  driver.Advance(3s);
  CHECK(driver.Send("GET", kGlobal + "firewalls/open").status == 404);
  CHECK(driver.emulator().State()["firewalls"].empty());
}

TEST_CASE("compute firewalls: patch replaces the fields it is given, checked as an insert; the name stays") {
  Driver driver;
  json ssh = IapRule();
  ssh["allowed"] = {{{"IPProtocol", "tcp"}, {"ports", {"22"}}}};
  REQUIRE(driver.Send("POST", kGlobal + "firewalls", ssh).status == 200);
  json patch = {{"name", "allow-iap-ray"}, {"allowed", {{{"IPProtocol", "tcp"}, {"ports", {"22", "8265"}}}}}};
  auto op = driver.Send("PATCH", kGlobal + "firewalls/allow-iap-ray", patch);
  REQUIRE(op.status == 200);
  CHECK(op.body["operationType"] == "patch");
  auto rule = driver.Send("GET", kGlobal + "firewalls/allow-iap-ray").body;
  CHECK(rule["allowed"][0]["ports"] == json::array({"22", "8265"}));
  CHECK(rule["sourceRanges"] == json::array({"35.235.240.0/20"}));
  patch["name"] = "renamed";
  CHECK(driver.Send("PATCH", kGlobal + "firewalls/allow-iap-ray", patch).status == 400);
  patch = {{"name", "allow-iap-ray"}, {"sourceRanges", {"nowhere"}}};
  CHECK(driver.Send("PATCH", kGlobal + "firewalls/allow-iap-ray", patch).status == 400);
  CHECK(driver.Send("PATCH", kGlobal + "firewalls/nope", json{{"name", "nope"}}).status == 404);
}

TEST_CASE("compute batch: each application/http part is answered in its own part, named response-<id>") {
  Driver driver;
  REQUIRE(driver.Send("POST", kGlobal + "firewalls", IapRule()).status == 200);
  // As apitools writes it (gcloud compute firewall-rules delete a b).
  const std::string boundary = "===============4380337437770999366==";
  std::string body;
  for (const std::string& name : {std::string("allow-iap-ray"), std::string("nope")}) {
    body += "--" + boundary +
            "\nContent-Type: application/http\nMIME-Version: 1.0\nContent-Transfer-Encoding: binary\n"
            "Content-ID: <80d07bb3+" +
            name + ">\n\nGET /compute/v1/projects/p/global/firewalls/" + name +
            "?alt=json HTTP/1.1\nContent-Type: application/json\ncontent-length: 0\nHost: 127.0.0.1:1\n\n\n";
  }
  body += "--" + boundary + "--\n";
  ApiRequest request;
  request.method = "POST";
  request.path = "/batch/compute/v1";
  request.headers["authorization"] = "Bearer t";
  request.headers["content-type"] = "multipart/mixed; boundary=\"" + boundary + "\"";
  request.body = body;
  REQUIRE(IsComputeBatch(request));
  ApiResponse reply = driver.emulator().Handle(request);
  REQUIRE(reply.status == 200);
  REQUIRE(reply.content_type.starts_with("multipart/mixed; boundary="));
  const std::string out_boundary = reply.content_type.substr(reply.content_type.find('=') + 1);
  CHECK(reply.body.find("Content-ID: <response-80d07bb3+allow-iap-ray>") != std::string::npos);
  CHECK(reply.body.find("Content-ID: <response-80d07bb3+nope>") != std::string::npos);
  CHECK(reply.body.find("HTTP/1.1 200 OK") < reply.body.find("HTTP/1.1 404 Not Found"));
  CHECK(reply.body.find("compute#firewall\"") != std::string::npos);
  CHECK(reply.body.ends_with("--" + out_boundary + "--\r\n"));
  // Each part is logged as a request of its own.
  auto logged = driver.emulator().Requests()["requests"];
  CHECK(logged.back()["path"] == "/compute/v1/projects/p/global/firewalls/nope");

  request.headers["content-type"] = "application/json";
  CHECK(driver.emulator().Handle(request).status == 400);
  // A batch inside a batch is refused.
  request.headers["content-type"] = "multipart/mixed; boundary=b";
  request.body = "--b\nContent-Type: application/http\n\nPOST /batch/compute/v1 HTTP/1.1\n\n\n--b--\n";
  CHECK(driver.emulator().Handle(request).status == 400);
}

}  // namespace
}  // namespace tputrain::emulator
