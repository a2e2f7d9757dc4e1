#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/k8s/client.h"

namespace tputrain::testing {

// Plays the garbage collector and the namespace controller: clears the finalizers that
// foreground deletion adds once an object is being deleted.
class Finalizer {
 public:
  Finalizer(k8s::Client& admin, std::vector<std::string> paths) : admin_(admin), paths_(std::move(paths)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Finalizer() {
    stop_ = true;
    thread_.join();
  }

 private:
  void Run() {
    while (!stop_) {
      for (const auto& path : paths_) {
        auto object = admin_.GetJson(path, "");
        if (!object || !(*object)["metadata"].contains("deletionTimestamp")) continue;
        auto finalizers = (*object)["metadata"].value("finalizers", nlohmann::json::array());
        nlohmann::json keep = nlohmann::json::array();
        for (const auto& finalizer : finalizers) {
          if (finalizer != "foregroundDeletion") keep.push_back(finalizer);
        }
        if (keep.size() != finalizers.size()) {
          (void)admin_.Send("PATCH", path, nlohmann::json{{"metadata", {{"finalizers", keep}}}}.dump(),
                            "application/merge-patch+json");
        }
        if ((*object)["kind"] == "Namespace" &&
            !(*object)["spec"].value("finalizers", nlohmann::json::array()).empty()) {
          auto ns = *object;
          ns["spec"]["finalizers"] = nlohmann::json::array();
          (void)admin_.Send("PUT", path + "/finalize", ns.dump());
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  k8s::Client& admin_;
  std::vector<std::string> paths_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tputrain::testing
