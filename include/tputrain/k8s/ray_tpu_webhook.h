#pragma once

#include <string>

#include "tputrain/k8s/client.h"

// GKE's Ray add-on registers a mutating webhook for KubeRay's TPU pods (ai-on-gke's
// kuberay-tpu-webhook): it sets TPU_WORKER_HOSTNAMES, TPU_WORKER_ID and TPU_NAME, which JAX needs
// to start across the hosts of a slice, and the node-pool affinity that keeps a slice on one pool.
// KubeRay installed any other way (Helm, a release manifest) has none of it.
namespace tputrain::k8s {

struct RayTpuWebhook {
  enum class Presence { kPresent, kAbsent, kUnknown };
  Presence presence = Presence::kUnknown;
  std::string configuration;  // the MutatingWebhookConfiguration that has it, when present
  std::string reason;         // why unknown: the API's answer
};

// Present when a MutatingWebhookConfiguration has a webhook for pods whose objectSelector
// selects app.kubernetes.io/name=kuberay (the label KubeRay puts on every pod it makes). Unknown
// when the configurations cannot be listed (RBAC): never an error, it is a line of information.
RayTpuWebhook FindRayTpuWebhook(Client& client);

}  // namespace tputrain::k8s
