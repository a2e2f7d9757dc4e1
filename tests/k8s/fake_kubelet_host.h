#pragma once

#include <memory>
#include <string>

#include "testing/netns_host.h"
#include "testing/scoped_process.h"
#include "tputrain/k8s/client.h"

namespace tputrain::testing {

// The FAKE kubelet (tests/k8s/fake_kubelet.py: ten made-up lines "<pod>/<container> line N" per
// container) on 10.252.x.y:10250 in a network namespace of its own (the API server refuses
// loopback backends), with a throwaway self-signed certificate. The API server reads a pod's log
// from the kubelet of the pod's node, so a Node made by AddNode, and pods whose spec.nodeName
// names it, have their logs served from here. Its processes are stopped by PID and the namespace
// and veth removed on destruction.
class FakeKubeletHost {
 public:
  static constexpr int kPort = 10250;

  FakeKubeletHost();
  ~FakeKubeletHost();
  FakeKubeletHost(const FakeKubeletHost&) = delete;
  FakeKubeletHost& operator=(const FakeKubeletHost&) = delete;

  const std::string& ip() const { return host_.ip(); }
  // Creates Node `name` reporting this kubelet as its own (InternalIP and kubeletEndpoint port),
  // as a real kubelet registers itself.
  void AddNode(k8s::Client& admin, const std::string& name) const;
  // Lets the followed log of `pod` go on past its first ten lines.
  void OpenGate(const std::string& pod) const;
  // The paths and queries the API server sent.
  std::string Requests() const;

 private:
  // The namespace itself (and whatever else runs in it, by PID) goes with host_.
  void Teardown();

  NetnsHost host_;
  std::string dir_;
  std::unique_ptr<ScopedProcess> kubelet_;
};

}  // namespace tputrain::testing
