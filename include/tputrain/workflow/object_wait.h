#pragma once

// `tputrain wait KIND/NAME`: until a Kubernetes object is ready, by watching it.
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

struct ObjectWaitRequest {
  KubeAccessFlags access;
  std::string target;          // KIND/NAME: raycluster/ray, lws/jetstream, jobset/sax, deploy/x
  std::string timeout = "5m";  // core::ParseDuration's grammar
};

struct ObjectWaitOutcome {
  std::string kind;  // as discovery names it ("RayCluster")
  std::string ns;
  std::string name;
  std::vector<std::string> notes;  // what could not be checked, for a warning line each
};

// Checks --timeout, connects, resolves KIND/NAME through discovery and watches until the object is ready; a timeout
// says why (the last status seen, the pods that are not ready with their latest event).
core::Result<ObjectWaitOutcome> WaitForObject(Root& root, const ObjectWaitRequest& request, core::CancelToken* cancel);
// wait --format json: the object, ready.
nlohmann::json ToJson(const ObjectWaitOutcome& waited);

}  // namespace tputrain::workflow
