// `tputrain emulator start --tpu-hosts netns` (root, iproute2, util-linux, curl, python3): a
// v5p-16's two hosts boot as network namespaces, run the node's startup script, read their
// metadata, count their chips, report through guest attributes and reach each other; deleting the
// node leaves no process, namespace, veth or /etc/netns directory.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using tputrain::testing::ProcessOptions;
using tputrain::testing::RunProcess;
using tputrain::testing::ScopedProcess;
using tputrain::testing::WaitFor;

const std::string kNodes = "/v2/projects/p/locations/us-east5-a/nodes";
const std::string kNode = "projects/p/locations/us-east5-a/nodes/hosts-test";

// What a Ray startup script will do first: read the host's identity from the metadata server,
// count /dev/accel*, report it, then keep a server running and reach every peer.
constexpr char kStartupScript[] = R"script(#!/bin/bash
set -u
md() { curl -sf -H 'Metadata-Flavor: Google' "http://metadata.google.internal/computeMetadata/v1/instance/$1"; }
put() {
  curl -sf -X PUT -H 'Metadata-Flavor: Google' --data-binary "$2" \
    "http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/tputrain/$1"
}
worker=$(md attributes/agent-worker-number)
ip=$(md network-interfaces/0/ip)
put worker "$worker"
put accelerator-type "$(md attributes/accelerator-type)"
put chips "$(ls /dev/accel* | wc -l)"
put hostname "$(hostname)"
put ip "$ip"
echo "worker $worker at $ip on $(hostname), PATH=$PATH"
nohup python3 -m http.server 8470 --bind "$ip" >/tmp/http.log 2>&1 &
put server-pid "$!"
reached=0
for peer in $(md attributes/worker-network-endpoints | tr ',' '\n' | cut -d: -f3); do
  for _ in $(seq 1 200); do curl -sf -o /dev/null "http://$peer:8470/" && break; sleep 0.1; done
  curl -sf -o /dev/null "http://$peer:8470/" && reached=$((reached + 1))
done
put peers-reached "$reached"
)script";

class HostsEmulator {
 public:
  HostsEmulator() : base_url_("http://127.0.0.1:" + std::to_string(tputrain::testing::FreeLoopbackPort())) {
    std::string port = base_url_.substr(base_url_.rfind(':') + 1);
    emulator_ = std::make_unique<ScopedProcess>(
        ProcessOptions{{tputrain::testing::TputrainBinary(), "emulator", "start", "--port", port, "--op-latency",
                        "300ms", "--tpu-hosts", "netns"}});
    started_ = WaitFor([&] { return Send("GET", "/_emulator/state").first == 200; }, std::chrono::seconds(20));
  }
  bool started() const { return started_; }
  int Stop() { return emulator_->Stop(std::chrono::milliseconds(20000)); }
  std::string Out() const { return emulator_->ReadOut(); }

  std::pair<int, json> Send(const std::string& method, const std::string& path, const json& body = nullptr) {
    http::Request request;
    request.method = method;
    request.url = base_url_ + path;
    request.headers.push_back({"Authorization", "Bearer test-token"});
    if (!body.is_null()) {
      request.headers.push_back({"Content-Type", "application/json"});
      request.body = body.dump();
    }
    request.timeout = std::chrono::seconds(30);
    auto response = transport_.Send(request);
    if (!response) return {0, nullptr};
    return {response->status, json::parse(response->body, nullptr, false)};
  }
  std::string Text(const std::string& path) {
    http::Request request;
    request.url = base_url_ + path;
    auto response = transport_.Send(request);
    return response ? response->body : "";
  }
  bool WaitDone(const json& operation) {
    std::string name = operation.value("name", "");
    return WaitFor([&] { return Send("GET", "/v2/" + name).second.value("done", false); }, std::chrono::seconds(30));
  }

 private:
  std::string base_url_;
  http::CurlTransport transport_;
  std::unique_ptr<ScopedProcess> emulator_;
  bool started_ = false;
};

std::map<std::string, std::string> Attributes(const json& entry) {
  std::map<std::string, std::string> values;
  for (const auto& item : entry["queryValue"].value("items", json::array())) values[item["key"]] = item["value"];
  return values;
}

std::set<std::string> EmulatorLeftovers() {
  std::set<std::string> found;
  for (const auto& command :
       {std::vector<std::string>{"ip", "netns", "list"}, std::vector<std::string>{"ip", "-o", "link", "show"}}) {
    std::istringstream lines(RunProcess({command}).out);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("tpuemu") != std::string::npos && line.find("tpuemu0:") == std::string::npos) found.insert(line);
    }
  }
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/etc/netns", ignored)) {
    if (entry.path().filename().string().rfind("tpuemu", 0) == 0) found.insert(entry.path().string());
  }
  return found;
}

bool ProcessGone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string pid_field, name, state;
  stat >> pid_field >> name >> state;
  return state == "Z";
}

TEST_CASE("--tpu-hosts netns: a v5p-16's 2 hosts run its startup script, report, reach each other, and go") {
  if (geteuid() != 0) {
    WARN("skipped: --tpu-hosts netns needs root");
    SUCCEED();
    return;
  }
  HostsEmulator emulator;
  REQUIRE(emulator.started());
  CHECK(emulator.Out().find("export TPUTRAIN_EMULATOR_METADATA_HOST=10.213.0.1\n") != std::string::npos);
  json node = {{"acceleratorType", "v5p-16"},
               {"runtimeVersion", "v2-alpha-tpuv5"},
               {"metadata", {{"startup-script", kStartupScript}}}};
  auto created = emulator.Send("POST", kNodes + "?nodeId=hosts-test", node);
  REQUIRE(created.first == 200);
  REQUIRE(emulator.WaitDone(created.second));
  json endpoints = emulator.Send("GET", kNodes + "/hosts-test").second["networkEndpoints"];
  REQUIRE(endpoints.size() == 2);

  json attributes;
  bool reported = WaitFor(
      [&] {
        attributes = emulator.Send("POST", kNodes + "/hosts-test:getGuestAttributes", json::object()).second;
        const json entries = attributes.value("guestAttributes", json::array());
        if (entries.size() != 2) return false;
        for (const auto& entry : entries) {
          if (Attributes(entry).count("peers-reached") == 0) return false;
        }
        return true;
      },
      std::chrono::seconds(60));
  if (!reported) {
    for (int worker = 0; worker < 2; ++worker) {
      UNSCOPED_INFO(
          "worker " << worker << " log:\n"
                    << emulator.Text("/_emulator/tpu-hosts/log?node=" + kNode + "&worker=" + std::to_string(worker)));
    }
  }
  REQUIRE(reported);
  std::set<std::string> hostnames;
  std::vector<int> server_pids;
  for (int worker = 0; worker < 2; ++worker) {
    auto values = Attributes(attributes["guestAttributes"][worker]);
    CHECK(values["worker"] == std::to_string(worker));
    CHECK(values["accelerator-type"] == "v5p-16");
    CHECK(values["chips"] == "4");
    CHECK(values["ip"] == endpoints[worker]["ipAddress"]);
    CHECK(values["peers-reached"] == "2");
    CHECK(values["hostname"].rfind("t1v-n-", 0) == 0);
    CHECK(values["hostname"].substr(values["hostname"].size() - 4) == "-w-" + std::to_string(worker));
    hostnames.insert(values["hostname"]);
    server_pids.push_back(std::stoi(values["server-pid"]));
  }
  CHECK(hostnames.size() == 2);
  std::string log = emulator.Text("/_emulator/tpu-hosts/log?node=" + kNode + "&worker=1");
  CHECK(log.find("worker 1 at " + endpoints[1]["ipAddress"].get<std::string>()) != std::string::npos);
  CHECK(log.find("PATH=/usr/local/sbin:") != std::string::npos);
  CHECK(EmulatorLeftovers().size() >= 4);  // 2 namespaces, 2 veths, 2 /etc/netns directories

  auto deleted = emulator.Send("DELETE", kNodes + "/hosts-test");
  REQUIRE(deleted.first == 200);
  // The hosts end as the delete starts, before its operation is done.
  CHECK(EmulatorLeftovers().empty());
  CHECK(emulator.Send("GET", "/_emulator/tpu-hosts").second["hosts"].empty());
  for (int pid : server_pids) CHECK(ProcessGone(pid));
  REQUIRE(emulator.WaitDone(deleted.second));
  CHECK(emulator.Stop() == 0);
  CHECK(RunProcess({{"ip", "link", "show", "tpuemu0"}}).exit_code != 0);  // the bridge went with the emulator
}

TEST_CASE("--tpu-hosts netns without root is refused in one line, before anything listens") {
  if (geteuid() != 0) {
    WARN("skipped: setpriv needs root to drop to nobody");
    SUCCEED();
    return;
  }
  auto refused =
      RunProcess({{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", tputrain::testing::TputrainBinary(),
                   "emulator", "start", "--port", "0", "--tpu-hosts", "netns"}},
                 std::chrono::seconds(30));
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("--tpu-hosts netns: needs root") != std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
}

}  // namespace
}  // namespace tputrain::emulator
