#pragma once

#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "k8s/control_plane.h"
#include "k8s/gke_emulator.h"
#include "k8s/kwok_nodes.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

// The emulator's GKE in front of the test API server and its real control plane, and tputrain
// run against it as a user would (gcloud's endpoint override, a Google token): `cluster create` and
// `nodepool create` make node pools on the emulator, Sync() turns them into kwok Nodes. On
// destruction the namespaces the test names go first (their pods would be made again on the next
// test's nodes), then the Nodes.
class EmulatedGke {
 public:
  explicit EmulatedGke(ControlPlane& plane) : plane_(plane) {
    std::string pattern = "/tmp/tputrain-gke-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    home_ = pattern;
    emulator_ = std::make_unique<GkeEmulator>(plane.server(), home_);
    if (!emulator_->ready()) throw std::runtime_error("the emulator did not start");
    WriteTextFile(home_ + "/google-token", plane.server().google_token() + "\n");
    std::filesystem::create_directories(home_ + "/gcloud");
    env_ = {{"KUBECONFIG", std::nullopt},
            {"RAY_ADDRESS", std::nullopt},
            {"TPUTRAIN_RUN", std::nullopt},
            {"XDG_STATE_HOME", home_ + "/xdg"},
            {"XDG_CONFIG_HOME", home_ + "/config"},
            {"NO_COLOR", "1"},
            {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", emulator_->url() + "/"},
            {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", home_ + "/google-token"},
            {"CLOUDSDK_CONFIG", home_ + "/gcloud"},
            {"CLOUDSDK_CORE_PROJECT", "p"}};
  }
  ~EmulatedGke() {
    auto& admin = plane_.server().admin();
    for (const auto& ns : namespaces_) (void)admin.Send("DELETE", "/api/v1/namespaces/" + ns);
    for (const auto& ns : namespaces_) {
      WaitFor(
          [&] {
            auto pods = admin.GetJson("/api/v1/namespaces/" + ns + "/pods", "");
            return pods && (*pods)["items"].empty();
          },
          std::chrono::seconds(60));
    }
    for (const auto& cluster : clusters_) RemoveNodePools(admin, cluster);
    emulator_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(home_, ignored);
  }
  EmulatedGke(const EmulatedGke&) = delete;
  EmulatedGke& operator=(const EmulatedGke&) = delete;

  const std::string& home() const { return home_; }
  const std::string& emulator_url() const { return emulator_->url(); }
  std::map<std::string, std::optional<std::string>>& env() { return env_; }

  ProcessResult Tputrain(std::vector<std::string> args, const std::string& stdin_text = "",
                         std::chrono::seconds timeout = std::chrono::seconds(300)) {
    args.insert(args.begin(), TputrainBinary());
    ProcessOptions options{args, env_, stdin_text, ""};
    return RunProcess(options, timeout);
  }

  // A namespace for the test's workloads, deleted with everything in it at the end.
  std::string Namespace(const std::string& prefix) {
    namespaces_.push_back(plane_.server().NewNamespace(prefix));
    return namespaces_.back();
  }

  // The emulator's node pools as kwok Nodes (see SyncEmulatorNodePools).
  std::vector<NodePoolShape> Sync() {
    auto pools = SyncEmulatorNodePools(plane_.server().admin(), emulator_->url());
    for (const auto& pool : pools) clusters_.insert(pool.cluster);
    return pools;
  }

 private:
  ControlPlane& plane_;
  std::string home_;
  std::unique_ptr<GkeEmulator> emulator_;
  std::map<std::string, std::optional<std::string>> env_;
  std::set<std::string> clusters_;
  std::vector<std::string> namespaces_;
};

}  // namespace tputrain::testing
