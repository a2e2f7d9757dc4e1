#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "k8s/apiserver_fixture.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

// What kwok does with a pod once it is Running. In both, a pod ends when the test asks
// (ControlPlane::EndPod).
enum class PodEnd {
  kJobPodsSucceed,  // kwok's stock pod-complete stage: a Job's pods succeed at once (training, converting)
  kRunForever,      // no completion stage: Job-owned pods keep running (a serving JobSet)
};

struct ControlPlaneOptions {
  PodEnd pod_end = PodEnd::kJobPodsSucceed;
  bool kuberay = false;  // KubeRay (no webhooks)
  bool lws = false;      // LeaderWorkerSet, its webhooks on loopback
  bool jobset = false;   // JobSet, its webhooks on loopback
  // The Kueue manager, its webhooks on loopback, with GKE's ProvisioningRequest API (its CRD) for
  // the provisioning admission check. Kueue itself is installed as a user's cluster has it: its
  // CRDs here, its manager the control plane's (tputrain finds it installed).
  bool kueue = false;
  // Pods that must answer on the network (a Ray head, a JetStream leader, sax-http), by one label
  // each: kwok leaves them without an address until the harness serves them (ServePodAt).
  std::vector<std::pair<std::string, std::string>> answering_pods;
};

// The real control plane next to the test API server, all on 127.0.0.1: kube-controller-manager
// (Deployments, Jobs, endpoints, the garbage collector, node lifecycle...), kube-scheduler, kwok as
// every node's kubelet (Nodes annotated kwok.x-k8s.io/node=fake; see kwok_nodes.h), and on request
// the KubeRay, LeaderWorkerSet and JobSet controllers and the Kueue manager with their CRDs and webhooks. Built by
// scripts/peers/k8s.sh. Every process is started at once and stopped by its PID on destruction (and
// dies with the test process). Tests play only the container runtime: kwok reports pods Running,
// and a pod that must answer is served by a real peer at an address the test gives it.
class ControlPlane {
 public:
  // The one per test binary, on ApiServer::Shared(); the options of the first call hold, and a
  // later call asking for more fails.
  static ControlPlane& Shared(const ControlPlaneOptions& options);

  ControlPlane(ApiServer& server, ControlPlaneOptions options);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  ApiServer& server() { return server_; }
  const ControlPlaneOptions& options() const { return options_; }

  // Gives pod `ns/name` (one of the answering pods) the address `ip`, where the test runs its real
  // peer: kwok then reports it Running and Ready there, and the endpoints controller lists it.
  void ServePodAt(const std::string& ns, const std::string& pod, const std::string& ip);
  // Starts an answering pod whose address nothing dials (kwok reports it Running at a loopback
  // address of its range).
  void StartPod(const std::string& ns, const std::string& pod) { ServePodAt(ns, pod, "127.100.255.254"); }
  // Ends pod `ns/name` the way its container would exit: 0 Succeeded, anything else Failed
  // (reason Error), reported by kwok.
  void EndPod(const std::string& ns, const std::string& pod, int exit_code);
  // The name of the first pod in `ns` matching `label_selector` once the scheduler has bound it.
  std::string WaitScheduledPod(const std::string& ns, const std::string& label_selector);

  // Logs of each process (for a failing test's INFO).
  std::string Logs() const;

  static constexpr const char* kPodIpAnnotation = "tputrain.test/pod-ip";
  static constexpr const char* kExitCodeAnnotation = "tputrain.test/exit-code";

 private:
  struct Peer {
    std::string name;
    std::unique_ptr<ScopedProcess> process;
    int probe_port = 0;                      // controller-runtime's /readyz (0: none)
    int webhook_port = 0;                    // its webhook server, which /readyz does not wait for (0: none)
    std::vector<std::string> webhook_paths;  // the paths its webhook configurations call
  };
  void StartPeer(const std::string& name, std::vector<std::string> argv, int probe_port = 0,
                 std::vector<std::pair<std::string, std::string>> env = {});
  std::string WriteKwokStages() const;
  std::string WriteOperatorConfig(const std::string& name, const std::string& api_version, int webhook_port,
                                  int probe_port, const std::string& extra = "") const;
  void ApplyOperatorCrds();
  // Returns the paths the configurations call on `port`.
  std::vector<std::string> RegisterWebhooks(const std::string& name, int port);
  void WaitUp();
  const Peer* ExitedPeer() const;  // the first peer that is no longer running, if any
  void Annotate(const std::string& ns, const std::string& pod, const std::string& key, const std::string& value);

  ApiServer& server_;
  ControlPlaneOptions options_;
  std::string dir_;         // inside the API server's directory
  std::string kubeconfig_;  // admin
  std::vector<Peer> peers_;
};

}  // namespace tputrain::testing
