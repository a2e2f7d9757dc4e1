#pragma once

// The Kubernetes side of the emulator's GKE clusters while an example script runs. The emulator's
// clusters report the test API server; beside it runs the real control plane (k8s/control_plane.h:
// controller manager, scheduler, kwok as the kubelets, the operators), and this gives it what the
// emulator alone cannot: the Nodes of every node pool the script makes (kwok_nodes.h), and real
// peers in network namespaces behind the pods that must answer (a Ray head, JetStream's leader,
// sax-http). Nothing here writes a workload's status: the controllers do.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "k8s/control_plane.h"
#include "tputrain/k8s/connect.h"

namespace tputrain::testing {

// A pod the script's workload makes that a real peer answers for: the first pod in the namespace
// matching `label_selector` is given the address `ip` once the scheduler has bound it.
struct ServedPod {
  std::string label_selector;
  std::string ip;
};

class ExampleCluster {
 public:
  // Watches namespace `ns` of `plane`'s API server and the emulator at `emulator_url` until
  // destroyed; then deletes the Nodes it made.
  ExampleCluster(ControlPlane& plane, std::string emulator_url, std::string ns, std::vector<ServedPod> served);
  ~ExampleCluster();
  ExampleCluster(const ExampleCluster&) = delete;
  ExampleCluster& operator=(const ExampleCluster&) = delete;

  // What happened, in order: "nodes CLUSTER/POOL: N" when a pool's Nodes appeared, "served POD at
  // IP", and "error: ..." if watching failed.
  std::vector<std::string> Seen() const;
  std::string SeenText() const;

  // The objects still in the namespace, "KIND NAME", except what Kubernetes itself keeps there
  // (the default ServiceAccount, kube-root-ca.crt).
  std::vector<std::string> Remaining();

 private:
  void Run();
  void Tick();
  void Record(const std::string& what);

  ControlPlane& plane_;
  std::string emulator_url_;
  std::string ns_;
  std::vector<ServedPod> served_;
  std::unique_ptr<k8s::Connection> connection_;  // the watcher's own client
  std::set<std::string> pools_;                  // CLUSTER/POOL whose Nodes exist
  std::set<std::string> clusters_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<std::string> seen_;
  std::thread thread_;
};

}  // namespace tputrain::testing
