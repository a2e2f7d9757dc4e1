#pragma once

// The real gcloud (Cloud SDK 528, /usr/bin/gcloud) with every API pointed at a `tputrain emulator
// start` of its own, and tputrain beside it with the same endpoints.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/emulator/api.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::emulator::gcloud_testing {

namespace fs = std::filesystem;
using tputrain::testing::ProcessOptions;
using tputrain::testing::ProcessResult;
using tputrain::testing::RunProcess;
using tputrain::testing::ScopedProcess;

inline constexpr char kGcloud[] = "/usr/bin/gcloud";
inline constexpr char kToken[] = "emulator-test-token-3f9c";

inline std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class GcloudAgainstEmulator {
 public:
  GcloudAgainstEmulator() : port_(tputrain::testing::FreeLoopbackPort()) {
    char dir_template[] = "/tmp/tputrain-gcloud-emulator-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir_template;
    fs::create_directories(dir_ / "gcloud");
    std::ofstream(dir_ / "token") << kToken << "\n";
    base_url_ = "http://127.0.0.1:" + std::to_string(port_);
  }
  ~GcloudAgainstEmulator() {
    emulator_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  bool Start(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {tputrain::testing::TputrainBinary(),
                                     "emulator",
                                     "start",
                                     "--port",
                                     std::to_string(port_),
                                     "--op-latency",
                                     "500ms",
                                     "--state-file",
                                     (dir_ / "state.json").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    emulator_ = std::make_unique<ScopedProcess>(ProcessOptions{argv});
    return tputrain::testing::WaitFor([&] { return State().has_value(); }, std::chrono::seconds(20));
  }
  int Stop() { return emulator_->Stop(); }
  std::string EmulatorOut() const { return emulator_->ReadOut(); }

  std::optional<nlohmann::json> State() {
    http::Request request;
    request.url = base_url_ + "/_emulator/state";
    request.timeout = std::chrono::seconds(5);
    auto response = transport_.Send(request);
    if (!response || response->status != 200) return std::nullopt;
    return nlohmann::json::parse(response->body);
  }
  nlohmann::json Requests() {
    http::Request request;
    request.url = base_url_ + "/_emulator/requests";
    return nlohmann::json::parse(transport_.Send(request)->body);
  }

  // gcloud with every API pointed at the emulator; `kubeconfig` separates parallel cluster creates.
  ProcessResult Gcloud(std::vector<std::string> args, const std::string& kubeconfig = "kubeconfig") {
    ProcessOptions options;
    options.argv = {kGcloud};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    for (const char* api :
         {"CONTAINER", "TPU", "IAM", "CLOUDRESOURCEMANAGER", "SERVICEUSAGE", "ARTIFACTREGISTRY", "CLOUDBUILD"}) {
      options.env[std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api] = base_url_ + "/";
    }
    // Anything unexpected lands on the emulator (and 404s), never on the network.
    options.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"] = base_url_ + "/compute/v1/";
    options.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"] = base_url_ + "/storage/v1/";
    options.env["CLOUDSDK_CONFIG"] = (dir_ / "gcloud").string();
    options.env["KUBECONFIG"] = (dir_ / kubeconfig).string();
    options.env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = (dir_ / "token").string();
    options.env["CLOUDSDK_CORE_PROJECT"] = "p";
    options.env["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1";
    options.env["CLOUDSDK_CORE_DISABLE_USAGE_REPORTING"] = "true";
    options.env["CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK"] = "true";
    options.env["CLOUDSDK_CORE_CHECK_GCE_METADATA"] = "false";
    for (const auto& [name, value] : gcloud_env_) options.env[name] = value;
    return RunProcess(options, std::chrono::seconds(180));
  }

  // tputrain with the same endpoints and credentials as Gcloud().
  ProcessResult Tputrain(std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {tputrain::testing::TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    for (const char* api :
         {"CONTAINER", "TPU", "IAM", "CLOUDRESOURCEMANAGER", "SERVICEUSAGE", "ARTIFACTREGISTRY", "CLOUDBUILD"}) {
      options.env[std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api] = base_url_ + "/";
    }
    options.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"] = base_url_ + "/storage/v1/";
    options.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"] = base_url_ + "/compute/v1/";
    options.env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = (dir_ / "token").string();
    options.env["CLOUDSDK_CONFIG"] = (dir_ / "gcloud").string();
    options.env["XDG_STATE_HOME"] = (dir_ / "state").string();
    options.env["TPUTRAIN_PROJECT"] = "p";
    return RunProcess(options, std::chrono::seconds(120));
  }

  const fs::path& dir() const { return dir_; }
  const std::string& base_url() const { return base_url_; }
  // Added to every later Gcloud() call's environment.
  void SetGcloudEnv(const std::string& name, const std::string& value) { gcloud_env_[name] = value; }

 private:
  std::map<std::string, std::string> gcloud_env_;
  int port_;
  fs::path dir_;
  std::string base_url_;
  http::CurlTransport transport_;
  std::unique_ptr<ScopedProcess> emulator_;
};

inline void ExpectSuccess(const std::vector<std::string>& args, const ProcessResult& result) {
  std::string command = "gcloud";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  CHECK(result.exit_code == 0);
}

// Runs independent commands at once, as a provisioning workflow would.
inline void RunParallel(GcloudAgainstEmulator& env, const std::vector<std::vector<std::string>>& commands) {
  std::vector<std::future<ProcessResult>> running;
  int index = 0;
  for (const auto& args : commands) {
    std::string kubeconfig = "kubeconfig-" + std::to_string(index++);
    running.push_back(
        std::async(std::launch::async, [&env, args, kubeconfig] { return env.Gcloud(args, kubeconfig); }));
  }
  for (size_t i = 0; i < commands.size(); ++i) ExpectSuccess(commands[i], running[i].get());
}

inline std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  return lines;
}

inline void Run(GcloudAgainstEmulator& env, const std::vector<std::string>& args) {
  ExpectSuccess(args, env.Gcloud(args));
}

}  // namespace tputrain::emulator::gcloud_testing
