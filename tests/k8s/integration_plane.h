#pragma once

#include "k8s/control_plane.h"
#include "k8s/kwok_nodes.h"

namespace tputrain::testing {

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
