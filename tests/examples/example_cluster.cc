#include "examples/example_cluster.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "tputrain/http/transport.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

// What an example's workloads are made of, and what their controllers make from them: every
// collection whose objects must be gone from the namespace once the script has cleaned up.
const std::vector<std::pair<std::string, std::string>> kCollections = {
    {"pod", "/api/v1/namespaces/NS/pods"},
    {"service", "/api/v1/namespaces/NS/services"},
    {"serviceaccount", "/api/v1/namespaces/NS/serviceaccounts"},
    {"configmap", "/api/v1/namespaces/NS/configmaps"},
    {"deployment", "/apis/apps/v1/namespaces/NS/deployments"},
    {"replicaset", "/apis/apps/v1/namespaces/NS/replicasets"},
    {"statefulset", "/apis/apps/v1/namespaces/NS/statefulsets"},
    {"job", "/apis/batch/v1/namespaces/NS/jobs"},
    {"raycluster", "/apis/ray.io/v1/namespaces/NS/rayclusters"},
    {"leaderworkerset", "/apis/leaderworkerset.x-k8s.io/v1/namespaces/NS/leaderworkersets"},
    {"jobset", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/NS/jobsets"},
};

// Kept in every namespace by Kubernetes itself.
bool KubernetesOwn(const std::string& kind, const std::string& name) {
  return (kind == "serviceaccount" && name == "default") || (kind == "configmap" && name == "kube-root-ca.crt");
}

std::string In(std::string collection, const std::string& ns) {
  collection.replace(collection.find("NS"), 2, ns);
  return collection;
}

}  // namespace

ExampleCluster::ExampleCluster(ControlPlane& plane, std::string emulator_url, std::string ns,
                               std::vector<ServedPod> served)
    : plane_(plane), emulator_url_(std::move(emulator_url)), ns_(std::move(ns)), served_(std::move(served)),
      connection_(ConnectWith(plane.server().KubeconfigText(plane.server().admin_token(), ns_))) {
  thread_ = std::thread([this] { Run(); });
}

ExampleCluster::~ExampleCluster() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  // The Nodes of the clusters the script made (it deleted the clusters; their Nodes are the test's).
  for (const auto& cluster : clusters_) RemoveNodePools(*connection_->client, cluster);
}

std::vector<std::string> ExampleCluster::Seen() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

std::string ExampleCluster::SeenText() const {
  std::string text;
  for (const auto& item : Seen()) text += "  " + item + "\n";
  return text;
}

std::vector<std::string> ExampleCluster::Remaining() {
  std::vector<std::string> remaining;
  auto& admin = plane_.server().admin();
  for (const auto& [kind, collection] : kCollections) {
    auto list = admin.GetJson(In(collection, ns_), "list");
    if (!list) {
      remaining.push_back(kind + "s: cannot list: " + list.error().message);
      continue;
    }
    for (const auto& object : list->value("items", json::array())) {
      const std::string name = object["metadata"].value("name", "");
      if (!KubernetesOwn(kind, name)) remaining.push_back(kind + " " + name);
    }
  }
  return remaining;
}

void ExampleCluster::Record(const std::string& what) {
  std::lock_guard lock(mutex_);
  seen_.push_back(what);
}

void ExampleCluster::Run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    try {
      Tick();
    } catch (const std::exception& e) {
      Record(std::string("error: ") + e.what());
    }
    lock.lock();
    // A watcher, like a controller's resync: a new pool or pod is seen within a quarter second.
    wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; });
  }
}

void ExampleCluster::Tick() {
  k8s::Client& client = *connection_->client;
  // The emulator's RUNNING node pools become Nodes (and those of deleted pools go), as GKE's
  // node pools join the cluster.
  for (const auto& shape : SyncEmulatorNodePools(client, emulator_url_)) {
    clusters_.insert(shape.cluster);
    if (pools_.insert(shape.cluster + "/" + shape.pool).second) {
      Record("nodes " + shape.cluster + "/" + shape.pool + ": " + std::to_string(shape.nodes));
    }
  }
  for (const auto& served : served_) {
    auto pods = client.GetJson(
        "/api/v1/namespaces/" + ns_ + "/pods?labelSelector=" + http::UrlEncode(served.label_selector), "");
    if (!pods) continue;
    // One pod per peer: the first bound one, unless one (not being deleted) is served already.
    std::string unserved;
    bool served_already = false;
    for (const auto& pod : pods->value("items", json::array())) {
      const json& metadata = pod["metadata"];
      if (metadata.contains("deletionTimestamp")) continue;
      if (metadata.value("annotations", json::object()).contains(ControlPlane::kPodIpAnnotation)) {
        served_already = true;
      } else if (unserved.empty() && !pod.value("spec", json::object()).value("nodeName", "").empty()) {
        unserved = metadata.value("name", "");
      }
    }
    if (served_already || unserved.empty()) continue;
    auto patched =
        client.Send("PATCH", "/api/v1/namespaces/" + ns_ + "/pods/" + unserved,
                    json{{"metadata", {{"annotations", {{ControlPlane::kPodIpAnnotation, served.ip}}}}}}.dump(),
                    "application/merge-patch+json");
    if (patched && patched->ok()) Record("served " + unserved + " at " + served.ip);
  }
}

}  // namespace tputrain::testing
