#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tputrain/emulator/tpu_host_fleet.h"
#include "tputrain/emulator/tpu_host_network.h"
#include "tputrain/emulator/tpu_metadata.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

const std::string kTpu = "/v2/projects/p/locations/us-east5-a";
const std::string kNode = "projects/p/locations/us-east5-a/nodes/v5p-node";

EmulatorConfig NetnsConfig() {
  EmulatorConfig config;
  config.tpu_hosts = TpuHostMode::kNetns;
  return config;
}

void CreateReady(Driver& driver, const std::string& id, const std::string& accelerator) {
  json body = {{"acceleratorType", accelerator},
               {"runtimeVersion", "v2-alpha-tpuv5"},
               {"metadata", {{"startup-script", "echo hi"}, {"tputrain-ray", "head"}}}};
  REQUIRE(driver.Send("POST", kTpu + "/nodes?nodeId=" + id, body).status == 200);
  driver.Advance(2s);
  REQUIRE(driver.Send("GET", kTpu + "/nodes/" + id).body["state"] == "READY");
}

ApiResponse Metadata(Driver& driver, const std::string& method, const std::string& path, const std::string& from,
                     const std::string& body = "", bool flavor = true) {
  ApiRequest request;
  request.method = method;
  request.path = "/computeMetadata/v1/" + path;
  request.body = body;
  if (flavor) request.headers["metadata-flavor"] = "Google";
  return driver.emulator().HandleMetadata(request, from);
}

// A fleet that records what it is asked to run.
class RecordingFleet final : public TpuHostFleet {
 public:
  void Reconcile(const std::vector<TpuHostSpec>& wanted) override { running = wanted; }
  json Describe() override { return json::array({{{"hosts", running.size()}}}); }
  core::Result<std::string> StartupLog(const std::string&, int) override { return std::string("log"); }
  std::vector<TpuHostSpec> running;
};

TEST_CASE("the hosts' metadata server answers each host by its source address, as a TPU VM's does") {
  Driver driver(NetnsConfig());
  CreateReady(driver, "v5p-node", "v5p-16");
  const std::string worker0 = TpuHostAddress(0), worker1 = TpuHostAddress(1);
  CHECK(Metadata(driver, "GET", "instance/attributes/agent-worker-number", worker1).body == "1");
  CHECK(Metadata(driver, "GET", "instance/attributes/agent-worker-number", worker0).body == "0");
  auto type = Metadata(driver, "GET", "instance/attributes/accelerator-type", worker0);
  CHECK(type.body == "v5p-16");
  CHECK(type.headers["Metadata-Flavor"] == "Google");
  CHECK(Metadata(driver, "GET", "instance/attributes/instance-id", worker0).body == "v5p-node");
  CHECK(Metadata(driver, "GET", "instance/attributes/worker-network-endpoints", worker1).body ==
        "unknown:unknown:" + worker0 + ",unknown:unknown:" + worker1);
  CHECK(Metadata(driver, "GET", "instance/attributes/startup-script", worker0).body == "echo hi");
  CHECK(Metadata(driver, "GET", "instance/attributes/tputrain-ray", worker0).body == "head");
  std::string env = Metadata(driver, "GET", "instance/attributes/tpu-env", worker1).body;
  CHECK(env.find("TOPOLOGY: '2x2x2'\n") != std::string::npos);
  CHECK(env.find("WORKER_ID: '1'\n") != std::string::npos);
  CHECK(env.find("CHIPS_PER_HOST_BOUNDS: '2,2,1'\n") != std::string::npos);
  CHECK(env.find("HOST_BOUNDS: '1,1,2'\n") != std::string::npos);
  CHECK(env.find("TYPE: 'V5P'\n") != std::string::npos);
  CHECK(env.find("ACCELERATOR_TYPE: 'v5p-16'\n") != std::string::npos);
  std::string listing = Metadata(driver, "GET", "instance/attributes/", worker0).body;
  CHECK(listing.find("agent-worker-number\n") != std::string::npos);
  CHECK(listing.find("startup-script\n") != std::string::npos);

  CHECK(Metadata(driver, "GET", "instance/network-interfaces/0/ip", worker1).body == worker1);
  std::string hostname = Metadata(driver, "GET", "instance/hostname", worker1).body;
  CHECK(hostname == TpuHostname(kNode, 1) + ".us-east5-a.c.p.internal");
  CHECK(hostname.rfind("t1v-n-", 0) == 0);
  CHECK(TpuHostname(kNode, 1).size() == std::string("t1v-n-01234567-w-1").size());
  CHECK(Metadata(driver, "GET", "instance/zone", worker0).body ==
        "projects/" + std::to_string(ProjectNumber("p")) + "/zones/us-east5-a");
  CHECK(Metadata(driver, "GET", "project/project-id", worker0).body == "p");

  CHECK(Metadata(driver, "GET", "instance/attributes/agent-worker-number", worker0, "", false).status == 403);
  CHECK(Metadata(driver, "GET", "instance/attributes/agent-worker-number", "10.213.9.9").status == 403);
  CHECK(Metadata(driver, "GET", "instance/attributes/missing", worker0).status == 404);
  CHECK(Metadata(driver, "GET", "instance/guest-attributes/tputrain/chips", worker0).status == 404);
}

TEST_CASE("guest attributes a host PUTs are what nodes.getGuestAttributes returns for that worker") {
  Driver driver(NetnsConfig());
  CreateReady(driver, "v5p-node", "v5p-16");
  CHECK(Metadata(driver, "PUT", "instance/guest-attributes/tputrain/chips", TpuHostAddress(1), "4").status == 200);
  CHECK(Metadata(driver, "GET", "instance/guest-attributes/tputrain/chips", TpuHostAddress(1)).body == "4");
  CHECK(Metadata(driver, "PUT", "instance/guest-attributes/nokey", TpuHostAddress(1), "4").status == 404);
  auto reply = driver.Send("POST", kTpu + "/nodes/v5p-node:getGuestAttributes", json::object());
  REQUIRE(reply.body["guestAttributes"].size() == 2);
  CHECK(reply.body["guestAttributes"][0]["queryValue"]["items"].empty());
  CHECK(reply.body["guestAttributes"][1]["queryValue"]["items"] ==
        json::array({{{"namespace", "tputrain"}, {"key", "chips"}, {"value", "4"}}}));
  CHECK_FALSE(driver.emulator().State()["tpuNodes"][kNode].contains("_guestAttributes"));  // kept private
}

TEST_CASE("the fleet runs the hosts of READY nodes: booted when READY, ended as soon as a delete starts") {
  Driver driver(NetnsConfig());
  RecordingFleet fleet;
  driver.emulator().AttachTpuHosts(&fleet);
  REQUIRE(driver
              .Send("POST", kTpu + "/nodes?nodeId=v5p-node",
                    json{{"acceleratorType", "v5p-16"},
                         {"runtimeVersion", "v2-alpha-tpuv5"},
                         {"metadata", {{"startup-script", "echo hi"}}}})
              .status == 200);
  CHECK(fleet.running.empty());  // CREATING
  driver.Advance(2s);
  driver.emulator().SyncTpuHosts();  // the server's tick: nobody polled
  REQUIRE(fleet.running.size() == 2);
  CHECK(fleet.running[1].node_name == kNode);
  CHECK(fleet.running[1].worker == 1);
  CHECK(fleet.running[1].address == TpuHostAddress(1));
  CHECK(fleet.running[1].chips == 4);
  CHECK(fleet.running[1].hostname == TpuHostname(kNode, 1));
  CHECK(fleet.running[1].startup_script == "echo hi");
  CHECK(driver.Send("GET", "/_emulator/tpu-hosts").body["hosts"][0]["hosts"] == 2);

  REQUIRE(driver.Send("DELETE", kTpu + "/nodes/v5p-node").status == 200);
  CHECK(fleet.running.empty());
  driver.emulator().AttachTpuHosts(nullptr);
}

TEST_CASE("a booted host reports its Compute instance name as guest attribute hostname, as the guest agent does") {
  Driver driver(NetnsConfig());
  RecordingFleet fleet;
  driver.emulator().AttachTpuHosts(&fleet);
  CreateReady(driver, "v5p-node", "v5p-16");
  driver.emulator().SyncTpuHosts();
  REQUIRE(fleet.running.size() == 2);
  auto reply = driver.Send("POST", kTpu + "/nodes/v5p-node:getGuestAttributes", json{{"workerIds", {"1"}}});
  REQUIRE(reply.body["guestAttributes"].size() == 1);
  CHECK(reply.body["guestAttributes"][0]["queryValue"]["items"] ==
        json::array({{{"namespace", "tpu"}, {"key", "hostname"}, {"value", TpuHostname(kNode, 1)}}}));
  // The host's own later report is kept beside it; the emulator's is written once.
  CHECK(Metadata(driver, "PUT", "instance/guest-attributes/tpu/hostname", TpuHostAddress(0), "renamed").status == 200);
  driver.emulator().SyncTpuHosts();
  CHECK(Metadata(driver, "GET", "instance/guest-attributes/tpu/hostname", TpuHostAddress(0)).body == "renamed");
  driver.emulator().AttachTpuHosts(nullptr);
}

TEST_CASE("ReportBootedHostnames skips a host whose node went or whose address changed") {
  json world = NewWorld();
  world["tpuNodes"]["n"] = {{"state", "READY"}, {"networkEndpoints", {{{"ipAddress", "10.213.1.5"}}}}};
  TpuHostSpec moved{"n", 0, "10.213.1.6", "t1v-n-00000000-w-0", 1, ""};
  TpuHostSpec gone{"other", 0, "10.213.1.7", "t1v-n-00000001-w-0", 1, ""};
  CHECK_FALSE(ReportBootedHostnames(world, {moved, gone}));
  TpuHostSpec booted{"n", 0, "10.213.1.5", "t1v-n-00000000-w-0", 1, ""};
  CHECK(ReportBootedHostnames(world, {booted}));
  CHECK_FALSE(ReportBootedHostnames(world, {booted}));
  CHECK(world["tpuNodes"]["n"]["_guestAttributes"]["0"]["tpu"]["hostname"] == "t1v-n-00000000-w-0");
}

TEST_CASE("WantedTpuHosts: only READY nodes, one host per network endpoint") {
  json world = NewWorld();
  world["tpuNodes"]["n1"] = {{"state", "CREATING"}, {"acceleratorType", "v6e-16"}};
  world["tpuNodes"]["n2"] = {{"state", "READY"},
                             {"acceleratorType", "v6e-1"},
                             {"networkEndpoints", {{{"ipAddress", "10.213.1.5"}, {"port", 8470}}}}};
  auto wanted = WantedTpuHosts(world);
  REQUIRE(wanted.size() == 1);
  CHECK(wanted[0].chips == 1);
  CHECK(wanted[0].startup_script.empty());
}

}  // namespace
}  // namespace tputrain::emulator
