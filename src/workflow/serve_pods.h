#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/k8s/client.h"
#include "tputrain/workflow/capacity.h"

// What serving waits read from pods, for every engine: a pod that cannot get better, with its
// container's last log lines, and a slice nobody can schedule on. Private to workflow.
namespace tputrain::workflow::serve_pods {

bool ConditionTrue(const nlohmann::json& object, const std::string& type);
int CountReady(const nlohmann::json& pods);

// The container's last `lines` log lines, best effort: a log that cannot be read gives "".
// `previous`: the instance before the running one (what an OOM kill ended).
std::string LogTail(k8s::Client& client, const std::string& ns, const std::string& pod, const std::string& container,
                    int64_t lines, bool previous = false);

// Warns when no node of the slice `tpu_type` exists yet (the pods stay Pending until one does);
// true when the cluster was seen to have none. `pool_hint` is the command that adds the nodes.
bool WarnWithoutNodes(k8s::Client& client, core::Reporter& reporter, const std::string& tpu_type);

// The slice's nodes before a serving apply: with `create`, its pools made (one per slice, named
// POOL[-i], at once; nothing sent under `dry_run`); else looked for, a warning when none exist.
// True when the cluster was seen to have none (a refused pod is then hopeless).
using PoolCreator = std::function<core::Status(const std::vector<gcp::container::NodePoolSpec>&)>;
struct SliceNodes {
  bool create = false;
  std::string pool;  // the pools' name
  std::string tpu_type;
  int slices = 1;
  bool dry_run = false;
  // The pools' capacity choice, as typed (checked by the caller). A flex-start pool has no node
  // until the pods wait on it: finding none then is not a hopeless refusal.
  CapacityFlags capacity;
};
core::Result<bool> EnsureSliceNodes(const PoolCreator& create_pools, k8s::Client& client, core::Reporter& reporter,
                                    const SliceNodes& nodes);

// A FailedPrecondition for the first of `pods` that cannot get better (PodProblem: crash loop,
// image, OOM; and, when `no_nodes`, one the scheduler refused for want of a slice), the last log
// lines of the container it names appended (`default_container` when its status has no name);
// nothing when they can all still get there.
std::optional<core::Error> HopelessPod(k8s::Client& client, const std::string& ns, const nlohmann::json& pods,
                                       const std::string& tpu_type, bool no_nodes,
                                       const std::string& default_container);

// The pods of `selector` in `ns`.
core::Result<nlohmann::json> Pods(k8s::Client& client, const std::string& ns, const std::string& selector);

// The pods of `selector`, unless one cannot get better: then HopelessPod's FailedPrecondition.
core::Result<nlohmann::json> LivePods(k8s::Client& client, const std::string& ns, const std::string& selector,
                                      const std::string& tpu_type, bool no_nodes, const std::string& default_container);

}  // namespace tputrain::workflow::serve_pods
