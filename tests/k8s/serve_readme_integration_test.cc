// README.md's JetStream tutorial ("Llama 3.1 405B from nothing to nothing"), run as written: each
// command of the block, through bash, against `tputrain emulator start` (Google's APIs) whose clusters are the real
// kube-apiserver of the test fixture, with seed 002's real JetStream stack on CPU in a network
// namespace serving the leader pod, on the real control plane (the Job controller completes the
// converter, LeaderWorkerSet makes the leader and workers on the Nodes of the pools the path makes
// on the emulator, the endpoints controller lists the leader, the garbage collector finishes
// cleanup). Nothing names the bucket but `bucket create`: serve convert and serve up find it.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "examples/example_cluster.h"
#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/gke_emulator.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_jetstream.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kBucket[] = "seed002-readme-ckpt";
constexpr char kJobPath[] = "/apis/batch/v1/namespaces/default/jobs/checkpoint-converter";
constexpr char kLwsPath[] = "/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/jetstream-pathways";
constexpr char kServicePath[] = "/api/v1/namespaces/default/services/jetstream-svc";

// The commands of the README's JetStream tutorial block, continuation lines joined.
std::vector<std::string> ReadmeSeed002Commands() {
  std::ifstream in(std::string(TPUTRAIN_SOURCE_DIR) + "/README.md");
  std::vector<std::string> commands;
  bool in_block = false;
  bool started = false;
  std::string pending;
  for (std::string line; std::getline(in, line);) {
    if (!in_block) {
      in_block = line.rfind("Llama 3.1 405B from nothing to nothing", 0) == 0;
      continue;
    }
    if (line.rfind("    ", 0) != 0) {
      if (started) break;  // the blank line after the block, or the prose after it
      continue;
    }
    started = true;
    std::string text = line.substr(4);
    const bool continued = !text.empty() && text.back() == '\\';
    if (continued) text.pop_back();
    pending += text;
    if (!continued) {
      commands.push_back(pending);
      pending.clear();
    }
  }
  return commands;
}

bool Exists(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path, "", "");
  return response && response->status == 200;
}

json EmulatorState(const GkeEmulator& emulator) {
  return json::parse(RunProcess(ProcessOptions{{"curl", "-s", emulator.url() + "/_emulator/state"}}).out);
}

std::string ArgsOf(const json& object, const std::string& container) {
  std::string args;
  const json spec = object["spec"]["template"]["spec"];
  for (const auto& each : spec.value("containers", json::array())) {
    if (each.value("name", "") != container) continue;
    for (const auto& arg : each.value("args", json::array())) args += arg.get<std::string>() + " ";
  }
  return args;
}

TEST_CASE("README's JetStream tutorial runs as written against the emulator and a real API server", "[integration]") {
  const auto commands = ReadmeSeed002Commands();
  REQUIRE(commands.size() == 9);
  REQUIRE(commands.front().rfind("tputrain services enable", 0) == 0);
  REQUIRE(commands.back().rfind("tputrain cleanup --yes", 0) == 0);

  // The converter's pod ends at once, as if it succeeded; LeaderWorkerSet is there (--install-operators
  // finds it); the leader, which jetstream-svc selects, is the pod that answers.
  ControlPlaneOptions plane_options;
  plane_options.pod_end = PodEnd::kJobPodsSucceed;
  plane_options.lws = true;
  plane_options.answering_pods = {{"app", "jetstream-pathways"}};
  auto& plane = ControlPlane::Shared(plane_options);
  auto& server = plane.server();
  NetnsJetStream jetstream;
  char home_template[] = "/tmp/tputrain-seed002-XXXXXX";
  REQUIRE(mkdtemp(home_template) != nullptr);
  const std::string home = home_template;
  GkeEmulator emulator(server, home);
  REQUIRE(emulator.ready());
  WriteTextFile(home + "/google-token", server.google_token() + "\n");
  fs::create_directories(home + "/gcloud");
  fs::create_directories(home + "/bin");
  fs::create_symlink(TputrainBinary(), home + "/bin/tputrain");

  ProcessOptions shell;
  shell.env = {{"PATH", home + "/bin:/usr/bin:/bin"},
               {"PROJECT", "seed-002-project"},
               {"BUCKET", kBucket},
               {"META_URL", "https://llama3-1.llamameta.net/*?Policy=test&Signature=x"},
               {"CLOUDSDK_CORE_PROJECT", "seed-002-project"},
               {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", home + "/google-token"},
               {"CLOUDSDK_CONFIG", home + "/gcloud"},
               {"XDG_STATE_HOME", home + "/xdg"},
               {"KUBECONFIG", home + "/kubeconfig"},
               {"TPUTRAIN_RUN", std::nullopt},
               {"TPUTRAIN_BUCKET", std::nullopt},
               {"TPUTRAIN_PROJECT", std::nullopt},
               {"CLOUDSDK_COMPUTE_ZONE", std::nullopt},
               {"CLOUDSDK_COMPUTE_REGION", std::nullopt}};
  for (const char* api :
       {"CONTAINER", "TPU", "IAM", "CLOUDRESOURCEMANAGER", "SERVICEUSAGE", "ARTIFACTREGISTRY", "CLOUDBUILD"}) {
    shell.env[std::string("CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api] = emulator.url() + "/";
  }
  shell.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"] = emulator.url() + "/compute/v1/";
  shell.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"] = emulator.url() + "/storage/v1/";
  auto command_options = [&](const std::string& command) {
    ProcessOptions options = shell;
    options.argv = {"/bin/bash", "-euo", "pipefail", "-c", command};
    return options;
  };
  // The README path names no namespace: `default`. Its pools become Nodes as the path makes them,
  // and the leader, once placed, runs where JetStream is.
  ExampleCluster cluster(plane, emulator.url(), "default", {{"app=jetstream-pathways", jetstream.ip()}});

  std::string generated;
  for (const auto& command : commands) {
    INFO(command);
    if (command.find("serve convert") != std::string::npos) {
      ScopedProcess convert(command_options(command));
      const bool applied = WaitFor([&] { return Exists(server.admin(), kJobPath); }, std::chrono::seconds(120));
      INFO("serve convert: " << convert.ReadErr());
      REQUIRE(applied);
      auto job = server.admin().GetJson(kJobPath, "job");
      REQUIRE(job);
      const std::string args = ArgsOf(*job, "inference-checkpoint");
      CHECK(args.find(std::string("--bucket_name=") + kBucket + " ") != std::string::npos);
      CHECK(args.find(std::string("--output_directory=gs://") + kBucket + "/maxtext/llama-3.1-405b ") !=
            std::string::npos);
      REQUIRE(WaitFor([&] { return !convert.running(); }, std::chrono::seconds(120)));
      INFO(convert.ReadErr());
      REQUIRE(convert.Stop() == 0);
      CHECK(convert.ReadErr().find(std::string("Using bucket ") + kBucket + " (from run ") != std::string::npos);
      CHECK(convert.ReadOut().find(std::string("the checkpoint is gs://") + kBucket + "/maxtext/llama-3.1-405b/int8") !=
            std::string::npos);
    } else if (command.find("serve up") != std::string::npos) {
      ScopedProcess up(command_options(command));
      const bool applied = WaitFor([&] { return Exists(server.admin(), kLwsPath); }, std::chrono::seconds(180));
      INFO("serve up: " << up.ReadErr());
      REQUIRE(applied);
      const std::string lws = server.admin().GetJson(kLwsPath, "lws")->dump();
      CHECK(lws.find(std::string("gs://") + kBucket + "/maxtext/llama-3.1-405b/int8") != std::string::npos);
      CHECK(lws.find(std::string("gs://") + kBucket + "/tmp") != std::string::npos);
      REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(5)));
      INFO(up.ReadErr() << "\ncluster:\n" << cluster.SeenText());
      REQUIRE(up.Stop() == 0);
      CHECK(up.ReadErr().find(std::string("Using bucket ") + kBucket + " (from run ") != std::string::npos);
      CHECK(up.ReadOut().find("Serving llama3.1-405b on v6e-16 (default/jetstream-pathways)") != std::string::npos);
    } else {
      auto result = RunProcess(command_options(command), std::chrono::seconds(300));
      INFO(result.out << result.err);
      REQUIRE(result.exit_code == 0);
      if (command.find("serve generate") != std::string::npos) generated = result.out;
    }
  }

  // The real engine answered through the API server's service proxy.
  CHECK(generated.size() > 1);
  // Nothing of the run is left: not in the API server, not in the emulator.
  CHECK_FALSE(Exists(server.admin(), kJobPath));
  CHECK_FALSE(Exists(server.admin(), kLwsPath));
  CHECK_FALSE(Exists(server.admin(), kServicePath));
  const json state = EmulatorState(emulator);
  CHECK(state.value("clusters", json::object()).empty());
  std::string buckets = state.value("buckets", json::object()).dump();
  CHECK(buckets.find(kBucket) == std::string::npos);
  std::error_code ignored;
  fs::remove_all(home, ignored);
}

}  // namespace
}  // namespace tputrain::testing
