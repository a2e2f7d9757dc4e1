#pragma once

#include "k8s/control_plane.h"
#include "k8s/kwok_nodes.h"

namespace tputrain::testing {

// The control plane of k8s_controllers_test: the three operators, pods that run until the test
// ends them, a Ray head that starts when the test says; and a pool of CPU nodes.
inline ControlPlane& IntegrationPlane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.kuberay = options.lws = options.jobset = true;
  options.answering_pods = {{"ray.io/node-type", "head"}};
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), CpuPool());
  return plane;
}

// The control plane of the binaries whose Ray head is a real one in a network namespace: KubeRay,
// the head served at the namespace's address when the test says; and a pool of CPU nodes.
inline ControlPlane& RayHeadPlane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.kuberay = true;
  options.answering_pods = {{"ray.io/node-type", "head"}};
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), CpuPool());
  return plane;
}

}  // namespace tputrain::testing
