#pragma once

// `tputrain emulator start` on a free loopback port, and tputrain/gcloud pointed at it through
// CLOUDSDK_API_ENDPOINT_OVERRIDES_* and an access-token file, each test in its own directory.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/core/text.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::workflow::testing {

namespace fs = std::filesystem;
using tputrain::testing::ProcessOptions;
using tputrain::testing::ProcessResult;

class EmulatorEnv {
 public:
  explicit EmulatorEnv(std::vector<std::string> extra_args = {}, std::string op_latency = "300ms")
      : port_(tputrain::testing::FreeLoopbackPort()) {
    char dir_template[] = "/tmp/tputrain-provision-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir_template;
    fs::create_directories(dir_ / "gcloud");
    std::ofstream(dir_ / "token") << "provision-test-token\n";
    base_url_ = "http://127.0.0.1:" + std::to_string(port_);
    std::vector<std::string> argv = {tputrain::testing::TputrainBinary(),
                                     "emulator",
                                     "start",
                                     "--port",
                                     std::to_string(port_),
                                     "--op-latency",
                                     op_latency};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    emulator_ = std::make_unique<tputrain::testing::ScopedProcess>(ProcessOptions{argv});
    ready_ = tputrain::testing::WaitFor([&] { return Get("/_emulator/state").has_value(); }, std::chrono::seconds(20));
  }
  ~EmulatorEnv() {
    emulator_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  bool ready() const { return ready_; }
  // The emulator's stdout so far: its `export` lines.
  std::string Out() const { return emulator_->ReadOut(); }
  // The value an `export NAME=VALUE` line of the emulator gives, or "".
  std::string Exported(const std::string& name) const {
    const std::string out = Out();
    const std::string prefix = "export " + name + "=";
    const auto at = out.find(prefix);
    if (at == std::string::npos) return "";
    const auto start = at + prefix.size();
    return out.substr(start, out.find('\n', start) - start);
  }
  const fs::path& dir() const { return dir_; }
  const std::string& url() const { return base_url_; }
  std::string state_dir() const { return (dir_ / "state").string(); }

  std::optional<nlohmann::json> Get(const std::string& path) {
    http::Request request;
    request.url = base_url_ + path;
    request.timeout = std::chrono::seconds(5);
    auto response = transport_.Send(request);
    if (!response || response->status != 200) return std::nullopt;
    return nlohmann::json::parse(response->body);
  }
  nlohmann::json State() { return Get("/_emulator/state").value_or(nlohmann::json()); }
  // Each netns host as the emulator describes it, with the end of its startup script's log: what
  // a boot that never reported left behind, for a failing test's message.
  std::string HostsReport() {
    auto hosts = Get("/_emulator/tpu-hosts");
    if (!hosts) return "(the emulator did not describe its hosts)";
    std::string report;
    for (const auto& host : (*hosts)["hosts"]) {
      report += host.dump() + "\n";
      http::Request request;
      request.url = base_url_ + "/_emulator/tpu-hosts/log?node=" + http::UrlEncode(host.value("node", "")) +
                    "&worker=" + std::to_string(host.value("worker", 0));
      request.timeout = std::chrono::seconds(5);
      auto log = transport_.Send(request);
      if (!log || log->status != 200) continue;
      constexpr size_t kTail = 3000;
      const std::string tail = log->body.substr(log->body.size() > kTail ? log->body.size() - kTail : 0);
      report += core::PrintableText(tail, core::Newlines::kKeep) + "\n";  // Ray colours its output
    }
    return report;
  }
  // The emulator's request log: {"requests": [{method, path, query, body, status, start_ms, end_ms}]}.
  nlohmann::json Requests() {
    auto reply = Get("/_emulator/requests");
    return reply && reply->is_object() ? reply->value("requests", nlohmann::json::array()) : nlohmann::json::array();
  }
  // An authenticated call to the emulator's APIs, as a second user of the project would make.
  int Call(const std::string& method, const std::string& path, const std::string& body = "") {
    http::Request request;
    request.method = method;
    request.url = base_url_ + path;
    request.body = body;
    request.headers.emplace_back("Authorization", "Bearer provision-test-token");
    auto response = transport_.Send(request);
    return response ? response->status : 0;
  }
  void Reset() {
    http::Request request;
    request.method = "POST";
    request.url = base_url_ + "/_emulator/reset";
    (void)transport_.Send(request);
  }

  std::map<std::string, std::optional<std::string>> Environment() const {
    std::map<std::string, std::optional<std::string>> env;
    for (const char* api : {"CONTAINER", "TPU", "IAM", "CLOUDRESOURCEMANAGER", "SERVICEUSAGE", "ARTIFACTREGISTRY",
                            "CLOUDBUILD", "CLOUDBILLING"}) {
      env[std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api] = base_url_ + "/";
    }
    env["CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"] = base_url_ + "/compute/v1/";
    env["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"] = base_url_ + "/storage/v1/";
    env["CLOUDSDK_CONFIG"] = (dir_ / "gcloud").string();
    env["KUBECONFIG"] = (dir_ / "kubeconfig").string();
    env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = (dir_ / "token").string();
    env["CLOUDSDK_CORE_PROJECT"] = "p";
    env["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1";
    env["CLOUDSDK_CORE_DISABLE_USAGE_REPORTING"] = "true";
    env["CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK"] = "true";
    env["CLOUDSDK_CORE_CHECK_GCE_METADATA"] = "false";
    env["XDG_STATE_HOME"] = (dir_ / "xdg").string();
    env["XDG_CACHE_HOME"] = (dir_ / "cache").string();  // the TPU price cache
    env["TPUTRAIN_BILLING_API_KEY"] = std::nullopt;
    env["TPUTRAIN_RUN"] = std::nullopt;
    env["CLOUDSDK_COMPUTE_ZONE"] = std::nullopt;
    env["CLOUDSDK_COMPUTE_REGION"] = std::nullopt;
    return env;
  }

  // tputrain ARGS --state-dir DIR (the ledger of this test).
  // `deadline` only stops a hung process; a call with a longer timeout of its own (--ray-timeout)
  // passes a deadline beyond it, so that a slow machine fails on tputrain's words, not a kill.
  ProcessResult Tputrain(std::vector<std::string> args, bool with_state_dir = true,
                         std::chrono::seconds deadline = std::chrono::seconds(180)) {
    ProcessOptions options;
    options.argv = {tputrain::testing::TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    if (with_state_dir) {
      options.argv.push_back("--state-dir");
      options.argv.push_back(state_dir());
    }
    options.env = Environment();
    return tputrain::testing::RunProcess(options, deadline);
  }

  ProcessResult Gcloud(std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {"/usr/bin/gcloud"};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = Environment();
    return tputrain::testing::RunProcess(options, std::chrono::seconds(180));
  }

 private:
  int port_;
  fs::path dir_;
  std::string base_url_;
  bool ready_ = false;
  http::CurlTransport transport_;
  std::unique_ptr<tputrain::testing::ScopedProcess> emulator_;
};

}  // namespace tputrain::workflow::testing
