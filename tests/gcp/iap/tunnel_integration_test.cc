// tputrain's IAP tunnel (TunnelSession behind a LoopbackTunnel, over the real libcurl WebSocket
// client and the credential decorator) through tests/testing/iap_relay.py to an HTTP server on
// loopback, bytes checked exactly; and the real gcloud (`beta compute start-iap-tunnel`) through
// the same relay, so the relay is known to speak the protocol gcloud speaks.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/gcp/iap/loopback_tunnel.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::gcp::iap {
namespace {

namespace fs = std::filesystem;
using tputrain::testing::ProcessOptions;
using tputrain::testing::RunProcess;
using tputrain::testing::ScopedProcess;
using tputrain::testing::WaitFor;

constexpr char kToken[] = "iap-test-token-5b1e";
constexpr char kRefreshedToken[] = "iap-test-token-refreshed-77d0";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// What tests/testing/bytes_http_server.py answers to GET /bytes?n=N.
std::string Pattern(size_t n, int salt = 0) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + 7 + static_cast<size_t>(salt)) % 251);
  return bytes;
}

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return connected;
}

// A CA and a certificate for 127.0.0.1 signed by it, made once per test binary with openssl.
struct TestCertificates {
  fs::path dir, ca, cert, key;
  TestCertificates() {
    char dir_template[] = "/tmp/tputrain-iap-certs-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = dir_template;
    ca = dir / "ca.pem";
    cert = dir / "relay.pem";
    key = dir / "relay.key";
    const fs::path ca_key = dir / "ca.key", csr = dir / "relay.csr", extensions = dir / "san.ext";
    std::ofstream(extensions) << "subjectAltName=IP:127.0.0.1\n";
    const std::vector<std::vector<std::string>> steps = {
        {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "1",
         "-subj", "/CN=tputrain IAP test CA"},
        {"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"},
        {"openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days",
         "1", "-extfile", extensions},
    };
    for (const auto& step : steps) {
      auto made = RunProcess({step}, std::chrono::seconds(60));
      if (made.exit_code != 0) throw std::runtime_error("openssl failed: " + made.err);
    }
  }
  ~TestCertificates() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

const TestCertificates& Certificates() {
  static TestCertificates certificates;
  return certificates;
}

// The bytes server as the instance's port, and the relay in front of it.
class RelayFixture {
 public:
  explicit RelayFixture(std::vector<std::string> faults = {}) {
    char dir_template[] = "/tmp/tputrain-iap-relay-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir_template;
    target_port_ = tputrain::testing::FreeLoopbackPort();
    target_ = std::make_unique<ScopedProcess>(
        ProcessOptions{{"python3", std::string(TPUTRAIN_SOURCE_DIR) + "/tests/testing/bytes_http_server.py", "--port",
                        std::to_string(target_port_)}});
    const auto& certificates = Certificates();
    std::vector<std::string> argv = {"python3",     std::string(TPUTRAIN_SOURCE_DIR) + "/tests/testing/iap_relay.py",
                                     "--cert",      certificates.cert,
                                     "--key",       certificates.key,
                                     "--token",     kToken,
                                     "--token",     kRefreshedToken,
                                     "--port-file", dir_ / "port",
                                     "--log",       dir_ / "relay.log"};
    argv.insert(argv.end(), faults.begin(), faults.end());
    relay_ = std::make_unique<ScopedProcess>(ProcessOptions{argv});
    if (!WaitFor([&] { return fs::exists(dir_ / "port") && Accepts(target_port_); }, std::chrono::seconds(20))) {
      throw std::runtime_error("the relay or the bytes server did not start: " + relay_->ReadErr() +
                               target_->ReadErr());
    }
    relay_url_ = "wss://127.0.0.1:" + ReadText(dir_ / "port");
  }
  ~RelayFixture() {
    relay_->Stop();
    target_->Stop();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  const std::string& relay_url() const { return relay_url_; }
  int target_port() const { return target_port_; }
  // The relay's log of upgrades, one JSON object each.
  std::vector<nlohmann::json> Upgrades() const {
    std::vector<nlohmann::json> entries;
    std::istringstream lines(ReadText(dir_ / "relay.log"));
    for (std::string line; std::getline(lines, line);) entries.push_back(nlohmann::json::parse(line));
    return entries;
  }

 private:
  fs::path dir_;
  int target_port_ = 0;
  std::string relay_url_;
  std::unique_ptr<ScopedProcess> target_;
  std::unique_ptr<ScopedProcess> relay_;
};

// A credential whose token changes once it is invalidated, as a refreshed access token would.
class TestCredential final : public http::Credential {
 public:
  core::Result<http::Headers> AuthHeaders() override {
    return http::Headers{{"Authorization", std::string("Bearer ") + (invalidated_ > 0 ? kRefreshedToken : kToken)}};
  }
  void Invalidate() override { ++invalidated_; }
  int invalidated() const { return invalidated_; }

 private:
  std::atomic<int> invalidated_{0};
};

// tputrain's side: libcurl WebSocket → credential decorator → session → loopback listener.
class TputrainTunnel {
 public:
  TputrainTunnel(const RelayFixture& relay, int port)
      : curl_([] {
          http::WebSocketOptions options;
          options.ca_bundle = Certificates().ca;
          return options;
        }()),
        connector_(curl_, credential_) {
    target_ = {"test-project", "us-central2-b", "t1v-n-0a1b2c3d-w-0", port, "nic0"};
    options_.base_url = relay.relay_url();
    options_.credential = &credential_;
  }

  core::Result<std::unique_ptr<TunnelSession>> Open() { return TunnelSession::Open(connector_, target_, options_); }

  int Listen() {
    auto listening = LoopbackTunnel::Listen(
        0, [this] { return Open(); },
        [this](const core::Error& error) {
          std::lock_guard lock(mutex_);
          errors_.push_back(error.message);
        });
    REQUIRE(listening);
    listener_ = std::move(*listening);
    return listener_->port();
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(mutex_);
    return errors_;
  }
  const TestCredential& credential() const { return credential_; }
  void Stop() { listener_->Stop(); }

 private:
  TestCredential credential_;
  http::CurlWebSocketConnector curl_;
  http::CredentialWebSocketConnector connector_;
  TunnelTarget target_;
  TunnelOptions options_;
  std::unique_ptr<LoopbackTunnel> listener_;
  std::mutex mutex_;
  std::vector<std::string> errors_;
};

http::Response Get(int port, size_t n) {
  http::CurlTransport transport;
  http::Request request;
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/bytes?n=" + std::to_string(n);
  request.timeout = std::chrono::seconds(60);
  auto response = transport.Send(request);
  REQUIRE(response);
  return *response;
}

http::Response Post(int port, const std::string& body) {
  http::CurlTransport transport;
  http::Request request;
  request.method = "POST";
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/echo";
  request.body = body;
  request.headers = {{"Content-Type", "application/octet-stream"}};
  request.timeout = std::chrono::seconds(60);
  auto response = transport.Send(request);
  REQUIRE(response);
  return *response;
}

bool HasPath(const std::vector<nlohmann::json>& upgrades, const std::string& path) {
  return std::any_of(upgrades.begin(), upgrades.end(),
                     [&](const auto& entry) { return entry.value("path", "") == path; });
}

}  // namespace

TEST_CASE("a GET of 300 KB and a POST of 200 KB cross tputrain's tunnel byte-exact") {
  RelayFixture relay;
  TputrainTunnel tunnel(relay, relay.target_port());
  int port = tunnel.Listen();

  auto got = Get(port, 300'000);
  CHECK(got.status == 200);
  CHECK(got.body.size() == 300'000);
  CHECK(got.body == Pattern(300'000));
  std::string upload = Pattern(200'000, 3);
  auto echoed = Post(port, upload);
  CHECK(echoed.status == 200);
  CHECK(echoed.body == upload);
  tunnel.Stop();
  CHECK(tunnel.errors().empty());

  auto upgrades = relay.Upgrades();
  REQUIRE_FALSE(upgrades.empty());
  const auto& first = upgrades.front();
  CHECK(first["path"] == "/v4/connect");
  CHECK(first["query"]["project"] == "test-project");
  CHECK(first["query"]["zone"] == "us-central2-b");
  CHECK(first["query"]["instance"] == "t1v-n-0a1b2c3d-w-0");
  CHECK(first["query"]["port"] == std::to_string(relay.target_port()));
  CHECK(first["query"]["interface"] == "nic0");
  CHECK(first["query"]["newWebsocket"] == "True");
  CHECK(first["origin"] == "bot:iap-tunneler");
  CHECK(first["subprotocol"] == "relay.tunnel.cloudproxy.app");
  CHECK(first["authorized"] == true);
  CHECK_FALSE(HasPath(upgrades, "/v4/reconnect"));
}

TEST_CASE("close 4004 in the middle of a download: a reconnect with a fresh token, and the body is exact") {
  RelayFixture relay({"--close-4004-after-downstream-bytes", "100000"});
  TputrainTunnel tunnel(relay, relay.target_port());
  int port = tunnel.Listen();

  auto got = Get(port, 400'000);
  CHECK(got.body == Pattern(400'000));
  tunnel.Stop();
  CHECK(tunnel.errors().empty());
  CHECK(tunnel.credential().invalidated() == 1);
  auto upgrades = relay.Upgrades();
  REQUIRE(HasPath(upgrades, "/v4/reconnect"));
  for (const auto& entry : upgrades) {
    if (entry.value("path", "") != "/v4/reconnect") continue;
    CHECK(entry["query"]["sid"] != "");
    CHECK(entry["query"]["zone"] == "us-central2-b");
    CHECK(entry["query"]["newWebsocket"] == "True");
    CHECK(std::stoull(entry["query"]["ack"].get<std::string>()) <= 100'000);
    CHECK(entry["authorized"] == true);
  }
}

TEST_CASE("close 4004 in the middle of an upload: what the relay lost is resent, and the echo is exact") {
  RelayFixture relay({"--close-4004-after-upstream-bytes", "100000"});
  TputrainTunnel tunnel(relay, relay.target_port());
  int port = tunnel.Listen();

  std::string upload = Pattern(300'000, 11);
  auto echoed = Post(port, upload);
  CHECK(echoed.status == 200);
  CHECK(echoed.body == upload);
  tunnel.Stop();
  CHECK(tunnel.errors().empty());
  CHECK(HasPath(relay.Upgrades(), "/v4/reconnect"));
}

TEST_CASE("close 4003 (nothing listens on the port) names the port, IAP's range and the firewall rule") {
  RelayFixture relay;
  int closed_port = tputrain::testing::FreeLoopbackPort();
  TputrainTunnel tunnel(relay, closed_port);
  auto session = tunnel.Open();
  REQUIRE_FALSE(session);
  INFO(session.error().message);
  CHECK(session.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(session.error().message.find("port " + std::to_string(closed_port) + " of instance t1v-n-0a1b2c3d-w-0") !=
        std::string::npos);
  CHECK(session.error().message.find("4003") != std::string::npos);
  CHECK(session.error().message.find("35.235.240.0/20") != std::string::npos);
  CHECK(session.error().message.find("cloud.google.com/iap/docs/tcp-by-host") != std::string::npos);
  CHECK(session.error().message.find("--rules tcp:" + std::to_string(closed_port)) != std::string::npos);

  // Through the listener, the client sees its connection closed and the error is reported.
  int port = tunnel.Listen();
  http::CurlTransport transport;
  http::Request request;
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/bytes?n=10";
  CHECK_FALSE(transport.Send(request));
  tunnel.Stop();
  REQUIRE(tunnel.errors().size() == 1);
  CHECK(tunnel.errors()[0].find("35.235.240.0/20") != std::string::npos);
}

TEST_CASE("a refused upgrade (403) names the IAM role the tunnel needs") {
  RelayFixture relay({"--refuse-status", "403"});
  TputrainTunnel tunnel(relay, relay.target_port());
  auto session = tunnel.Open();
  REQUIRE_FALSE(session);
  INFO(session.error().message);
  CHECK(session.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(session.error().http_status == 403);
  CHECK(session.error().message.find("roles/iap.tunnelResourceAccessor") != std::string::npos);
}

TEST_CASE("the real gcloud's start-iap-tunnel fetches the same body through the same relay") {
  RelayFixture relay;
  char dir_template[] = "/tmp/tputrain-iap-gcloud-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  fs::path dir = dir_template;
  fs::create_directories(dir / "gcloud");
  std::ofstream(dir / "token") << kToken << "\n";
  int local_port = tputrain::testing::FreeLoopbackPort();

  ProcessOptions options;
  options.argv = {"gcloud",
                  "beta",
                  "compute",
                  "start-iap-tunnel",
                  "t1v-n-0a1b2c3d-w-0",
                  std::to_string(relay.target_port()),
                  "--zone",
                  "us-central2-b",
                  "--project",
                  "test-project",
                  "--local-host-port=localhost:" + std::to_string(local_port),
                  "--iap-tunnel-url-override=" + relay.relay_url(),
                  "--iap-tunnel-insecure-disable-websocket-cert-check",
                  "--iap-tunnel-disable-connection-check"};
  options.env["CLOUDSDK_CONFIG"] = (dir / "gcloud").string();
  options.env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = (dir / "token").string();
  options.env["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1";
  options.env["CLOUDSDK_CORE_DISABLE_USAGE_REPORTING"] = "true";
  options.env["CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK"] = "true";
  options.env["CLOUDSDK_CORE_CHECK_GCE_METADATA"] = "false";
  // This machine points every tool at one CA bundle; gcloud must use the relay's test CA (and the
  // cert check is off for the WebSocket anyway).
  for (const char* name : {"CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}) {
    options.env[name] = Certificates().ca.string();
  }
  {
    ScopedProcess gcloud(options);
    bool listening = WaitFor([&] { return Accepts(local_port) || !gcloud.running(); }, std::chrono::seconds(60));
    INFO(gcloud.ReadErr());
    REQUIRE(listening);
    REQUIRE(gcloud.running());

    auto got = Get(local_port, 300'000);
    CHECK(got.status == 200);
    CHECK(got.body == Pattern(300'000));
    std::string upload = Pattern(200'000, 5);
    CHECK(Post(local_port, upload).body == upload);
    gcloud.Stop();
  }
  auto upgrades = relay.Upgrades();
  REQUIRE_FALSE(upgrades.empty());
  // The relay checked gcloud's upgrade as it checks tputrain's: same path, query, headers, token.
  const auto& first = upgrades.front();
  CHECK(first["path"] == "/v4/connect");
  CHECK(first["query"]["instance"] == "t1v-n-0a1b2c3d-w-0");
  CHECK(first["query"]["interface"] == "nic0");
  CHECK(first["origin"] == "bot:iap-tunneler");
  CHECK(first["subprotocol"] == "relay.tunnel.cloudproxy.app");
  CHECK(first["authorized"] == true);
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST_CASE("tputrain tpu-vm tunnel keeps a port open through the relay until SIGTERM, then exits 0") {
  RelayFixture relay({"--close-4004-after-downstream-bytes", "50000"});
  char dir_template[] = "/tmp/tputrain-iap-cli-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  fs::path dir = dir_template;
  std::ofstream(dir / "token") << kToken << "\n";
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(),
                  "tpu-vm",
                  "tunnel",
                  "ray-v5p",
                  "--project",
                  "test-project",
                  "--zone",
                  "us-central2-b",
                  "--port",
                  std::to_string(relay.target_port()),
                  "--instance",
                  "t1v-n-0a1b2c3d-w-0"};
  options.env["TPUTRAIN_IAP_TUNNEL_URL"] = relay.relay_url();
  options.env["CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE"] = Certificates().ca.string();
  options.env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = (dir / "token").string();
  options.env["CLOUDSDK_CONFIG"] = (dir / "gcloud").string();
  options.env["XDG_STATE_HOME"] = (dir / "state").string();
  ScopedProcess tputrain(options);
  int port = 0;
  bool listening = WaitFor(
      [&] {
        auto out = tputrain.ReadOut();
        if (auto at = out.find("127.0.0.1:"); at != std::string::npos && out.find('\n', at) != std::string::npos) {
          port = std::stoi(out.substr(at + 10));
        }
        return port != 0 || !tputrain.running();
      },
      std::chrono::seconds(30));
  INFO(tputrain.ReadErr());
  REQUIRE(listening);
  REQUIRE(port != 0);
  CHECK(Get(port, 200'000).body == Pattern(200'000));  // across a 4004: the token file is read again
  CHECK(tputrain.Stop() == 0);
  CHECK(tputrain.ReadErr().find(kToken) == std::string::npos);
  CHECK(HasPath(relay.Upgrades(), "/v4/reconnect"));
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST_CASE("tputrain tpu-vm tunnel: a bad --instance, --worker or --port is one line, exit 2, before any call") {
  auto result = RunProcess({{tputrain::testing::TputrainBinary(), "tpu-vm", "tunnel", "ray-v5p", "--project", "p",
                             "--zone", "us-central2-b", "--port", "8265", "--instance", "Bad_Name"}});
  CHECK(result.exit_code == 2);
  CHECK(result.err.rfind("ERROR: --instance:", 0) == 0);
  auto worker = RunProcess({{tputrain::testing::TputrainBinary(), "tpu-vm", "tunnel", "ray-v5p", "--project", "p",
                             "--zone", "us-central2-b", "--port", "8265", "--worker", "-1"}});
  CHECK(worker.exit_code == 2);
  CHECK(worker.err.rfind("ERROR: --worker:", 0) == 0);
  auto bad_port = RunProcess({{tputrain::testing::TputrainBinary(), "tpu-vm", "tunnel", "ray-v5p", "--project", "p",
                               "--zone", "us-central2-b", "--port", "70000", "--instance", "i"}});
  CHECK(bad_port.exit_code == 2);
  CHECK(bad_port.err.find("--port: expected a TCP port") != std::string::npos);
}

}  // namespace tputrain::gcp::iap
