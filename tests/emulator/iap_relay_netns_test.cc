// The emulator's IAP relay (`tputrain emulator start --tpu-hosts netns`; root, iproute2, curl,
// python3, gcloud): tputrain's tunnel and the real `gcloud beta compute start-iap-tunnel`, pointed
// at it by the variables the emulator prints, reach a v5p-16 worker's port by the instance name
// its guest attributes report; nothing listening is 4003, an unknown instance 4047, and a 4004
// from the admin endpoint is resumed without losing a byte.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using tputrain::testing::FreeLoopbackPort;
using tputrain::testing::ProcessOptions;
using tputrain::testing::RunProcess;
using tputrain::testing::ScopedProcess;
using tputrain::testing::WaitFor;
using namespace std::chrono_literals;

const std::string kZone = "us-east5-a";
const std::string kNodes = "/v2/projects/p/locations/" + kZone + "/nodes";
constexpr int kServedPort = 8265;

// Every host serves a directory with 300 kB of random bytes (many DATA frames and ACKs) and its
// own address, on the Ray dashboard's port.
constexpr char kStartupScript[] = R"script(#!/bin/bash
set -eu
ip=$(curl -sf -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/network-interfaces/0/ip)
mkdir -p /tmp/www
head -c 300000 /dev/urandom >/tmp/www/blob.bin
echo "served by $ip" >/tmp/www/who.txt
exec python3 -m http.server 8265 --bind "$ip" --directory /tmp/www
)script";

// `KEY=VALUE` of the emulator's `export KEY=VALUE` lines.
std::map<std::string, std::string> Exports(const std::string& out) {
  std::map<std::string, std::string> values;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("export ", 0) != 0) continue;
    auto eq = line.find('=');
    values[line.substr(7, eq - 7)] = line.substr(eq + 1);
  }
  return values;
}

class RelayEmulator {
 public:
  RelayEmulator() : base_url_("http://127.0.0.1:" + std::to_string(FreeLoopbackPort())) {
    emulator_ = std::make_unique<ScopedProcess>(
        ProcessOptions{{tputrain::testing::TputrainBinary(), "emulator", "start", "--port",
                        base_url_.substr(base_url_.rfind(':') + 1), "--op-latency", "300ms", "--tpu-hosts", "netns"}});
    started_ =
        WaitFor([&] { return Exports(emulator_->ReadOut()).count("CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE") > 0; }, 20s);
  }
  bool started() const { return started_; }
  std::map<std::string, std::string> exports() const { return Exports(emulator_->ReadOut()); }
  int Stop() { return emulator_->Stop(20000ms); }

  std::pair<int, std::string> Send(const std::string& method, const std::string& url, const json& body = nullptr) {
    http::Request request;
    request.method = method;
    request.url = url.rfind("http", 0) == 0 ? url : base_url_ + url;
    request.headers.push_back({"Authorization", "Bearer test-token"});
    if (!body.is_null()) {
      request.headers.push_back({"Content-Type", "application/json"});
      request.body = body.dump();
    }
    request.timeout = 30s;
    auto response = transport_.Send(request);
    if (!response) return {0, response.error().message};
    return {response->status, response->body};
  }
  json Json(const std::string& method, const std::string& path, const json& body = nullptr) {
    return json::parse(Send(method, path, body).second, nullptr, false);
  }
  bool WaitDone(const json& operation) {
    return WaitFor([&] { return Json("GET", "/v2/" + operation.value("name", "")).value("done", false); }, 30s);
  }

 private:
  std::string base_url_;
  http::CurlTransport transport_;
  std::unique_ptr<ScopedProcess> emulator_;
  bool started_ = false;
};

// The variables a user evals from the emulator, plus a token file and a gcloud configuration.
std::map<std::string, std::optional<std::string>> ClientEnv(const std::map<std::string, std::string>& exports,
                                                            const std::string& dir) {
  std::ofstream(dir + "/token") << "test-token\n";
  std::map<std::string, std::optional<std::string>> env;
  for (const auto& [name, value] : exports) env[name] = value;
  env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = dir + "/token";
  env["CLOUDSDK_CONFIG"] = dir + "/gcloud";
  env["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1";
  return env;
}

std::unique_ptr<ScopedProcess> TputrainTunnel(const std::map<std::string, std::optional<std::string>>& env,
                                              const std::string& instance, int port, int local_port) {
  return std::make_unique<ScopedProcess>(ProcessOptions{
      {tputrain::testing::TputrainBinary(), "tpu-vm", "tunnel", "relay-test", "--project", "p", "--zone", kZone,
       "--port", std::to_string(port), "--instance", instance, "--local-port", std::to_string(local_port)},
      env});
}

TEST_CASE("the emulator's IAP relay: tputrain's tunnel and gcloud's reach a v5p-16 worker by its instance name") {
  if (geteuid() != 0) {
    WARN("skipped: --tpu-hosts netns needs root");
    SUCCEED();
    return;
  }
  const std::string dir = std::filesystem::temp_directory_path() / ("iap-relay-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  RelayEmulator emulator;
  REQUIRE(emulator.started());
  auto exports = emulator.exports();
  CHECK(exports["TPUTRAIN_IAP_TUNNEL_URL"].rfind("wss://127.0.0.1:", 0) == 0);
  const std::string ca_file = exports["CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE"];
  REQUIRE(std::filesystem::exists(ca_file));
  auto env = ClientEnv(exports, dir);

  json node = {{"acceleratorType", "v5p-16"},
               {"runtimeVersion", "v2-alpha-tpuv5"},
               {"metadata", {{"startup-script", kStartupScript}}}};
  auto created = emulator.Json("POST", kNodes + "?nodeId=relay-test", node);
  REQUIRE(emulator.WaitDone(created));
  json endpoints = emulator.Json("GET", kNodes + "/relay-test")["networkEndpoints"];
  REQUIRE(endpoints.size() == 2);
  std::vector<std::string> addresses = {endpoints[0]["ipAddress"], endpoints[1]["ipAddress"]};

  // Worker 0's instance name, as gcloud's tpu-vm ssh --tunnel-through-iap reads it.
  std::string instance0;
  REQUIRE(WaitFor(
      [&] {
        json reply = emulator.Json("POST", kNodes + "/relay-test:getGuestAttributes", {{"workerIds", {"0"}}});
        for (const auto& item : reply["guestAttributes"][0]["queryValue"].value("items", json::array())) {
          if (item["key"] == "hostname") instance0 = item["value"];
        }
        return !instance0.empty();
      },
      30s));
  CHECK(instance0.rfind("t1v-n-", 0) == 0);
  // The machine reaches the hosts' bridge directly: what each worker serves, to compare with.
  std::vector<std::string> blobs(2);
  for (int worker = 0; worker < 2; ++worker) {
    std::string url = "http://" + addresses[worker] + ":" + std::to_string(kServedPort) + "/blob.bin";
    // (curl: tputrain's transport takes plain http to loopback only)
    REQUIRE(WaitFor([&] { return RunProcess({{"curl", "-sf", "-o", "/dev/null", url}}).exit_code == 0; }, 30s));
    blobs[worker] = RunProcess({{"curl", "-sf", url}}).out;
    REQUIRE(blobs[worker].size() == 300000);
  }
  CHECK(blobs[0] != blobs[1]);

  SECTION("(a) tputrain tpu-vm tunnel, with a 4004 resumed mid-request") {
    int local_port = FreeLoopbackPort();
    auto tunnel = TputrainTunnel(env, instance0, kServedPort, local_port);
    REQUIRE(WaitFor([&] { return tunnel->ReadOut().find("127.0.0.1:") != std::string::npos; }, 20s));
    std::string local = "http://127.0.0.1:" + std::to_string(local_port);
    auto blob = emulator.Send("GET", local + "/blob.bin");
    CHECK(blob.first == 200);
    CHECK((blob.second == blobs[0]));
    CHECK(emulator.Send("GET", local + "/who.txt").second == "served by " + addresses[0] + "\n");

    // A request cut in two by the relay's 4004: the session resumes on /v4/reconnect.
    auto half = RunProcess(
        {{"python3", "-c",
          "import socket,sys,time,urllib.request\n"
          "s=socket.create_connection(('127.0.0.1'," +
              std::to_string(local_port) +
              "))\n"
              "s.sendall(b'GET /blob.bin HTTP/1.0\\r\\n')\n"
              "time.sleep(0.5)\n"
              "print(urllib.request.urlopen(urllib.request.Request(sys.argv[1],method='POST')).read().decode())\n"
              "time.sleep(0.5)\n"
              "s.sendall(b'\\r\\n')\n"
              "d=b''\n"
              "while True:\n"
              "  c=s.recv(65536)\n"
              "  if not c: break\n"
              "  d+=c\n"
              "sys.stdout.flush(); sys.stdout.buffer.write(d.split(b'\\r\\n\\r\\n',1)[1])\n",
          exports["TPUTRAIN_EMULATOR_URL"] + "/_emulator/iap-relay/reauthenticate"}},
        60s);
    // Once seen failing under the whole suite's load (exit 1, passing alone): say why next time.
    INFO("the client's stderr: " << half.err << "\nthe tunnel's stderr: " << tunnel->ReadErr());
    REQUIRE(half.exit_code == 0);
    CHECK(half.out.rfind("{\"sessions\":1}\n", 0) == 0);
    CHECK((half.out.substr(half.out.find('\n') + 1) == blobs[0]));
    tunnel->Stop();
  }

  SECTION("(b) the real gcloud beta compute start-iap-tunnel, with and without the certificate check") {
    for (bool insecure : {true, false}) {
      int local_port = FreeLoopbackPort();
      std::vector<std::string> argv = {"gcloud",
                                       "beta",
                                       "compute",
                                       "start-iap-tunnel",
                                       instance0,
                                       std::to_string(kServedPort),
                                       "--zone",
                                       kZone,
                                       "--project",
                                       "p",
                                       "--local-host-port=localhost:" + std::to_string(local_port),
                                       "--iap-tunnel-url-override=" + exports["TPUTRAIN_IAP_TUNNEL_URL"],
                                       "--iap-tunnel-disable-connection-check"};
      // Without it gcloud checks the relay's certificate against CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE.
      if (insecure) argv.push_back("--iap-tunnel-insecure-disable-websocket-cert-check");
      ScopedProcess gcloud(ProcessOptions{argv, env});
      INFO("insecure: " << insecure);
      std::pair<int, std::string> blob;
      bool served = WaitFor(
          [&] {
            blob = emulator.Send("GET", "http://127.0.0.1:" + std::to_string(local_port) + "/blob.bin");
            return blob.first != 0;  // 0: gcloud does not listen yet
          },
          60s);
      INFO(gcloud.ReadErr());
      REQUIRE(served);
      CHECK(blob.first == 200);
      CHECK((blob.second == blobs[0]));
      gcloud.Stop();
    }
  }

  SECTION("(c) a port nothing listens on is 4003, (d) an unknown instance 4047") {
    int closed_port = FreeLoopbackPort();
    auto closed = TputrainTunnel(env, instance0, kServedPort + 1, closed_port);
    std::string unknown_instance = "t1v-n-00000000-w-0";
    int unknown_port = FreeLoopbackPort();
    auto unknown = TputrainTunnel(env, unknown_instance, kServedPort, unknown_port);
    REQUIRE(WaitFor([&] { return closed->ReadOut().find("127.0.0.1:") != std::string::npos; }, 20s));
    REQUIRE(WaitFor([&] { return unknown->ReadOut().find("127.0.0.1:") != std::string::npos; }, 20s));
    CHECK(emulator.Send("GET", "http://127.0.0.1:" + std::to_string(closed_port) + "/").first == 0);
    CHECK(emulator.Send("GET", "http://127.0.0.1:" + std::to_string(unknown_port) + "/").first == 0);
    CHECK(WaitFor([&] { return closed->ReadErr().find("(close code 4003)") != std::string::npos; }, 10s));
    CHECK(closed->ReadErr().find("port 8266 of instance " + instance0) != std::string::npos);
    CHECK(WaitFor([&] { return unknown->ReadErr().find("closed the session with code 4047") != std::string::npos; },
                  10s));
    closed->Stop();
    unknown->Stop();
  }

  auto deleted = emulator.Json("DELETE", kNodes + "/relay-test");
  REQUIRE(emulator.WaitDone(deleted));
  CHECK(emulator.Json("GET", "/_emulator/tpu-hosts")["hosts"].empty());
  auto namespaces = RunProcess({{"ip", "netns", "list"}}).out;
  CHECK(namespaces.find("relay-test") == std::string::npos);
  for (const auto& address : addresses) {
    std::string url = "http://" + address + ":" + std::to_string(kServedPort) + "/";
    CHECK(RunProcess({{"curl", "-sf", "-m", "5", url}}).exit_code != 0);
  }
  CHECK(emulator.Stop() == 0);
  CHECK_FALSE(std::filesystem::exists(ca_file));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tputrain::emulator
