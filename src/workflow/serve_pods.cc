// What a serving wait reads from pods, whichever engine they run.
#include "serve_pods.h"

#include <algorithm>

#include "template_values.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/pod_logs.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

// Waiting reasons of a container that will not get better by waiting.
constexpr std::string_view kHopeless[] = {"CrashLoopBackOff", "ImagePullBackOff",           "ErrImagePull",
                                          "InvalidImageName", "CreateContainerConfigError", "CreateContainerError"};

std::string LastLines(const std::string& text, std::size_t count) {
  std::size_t at = text.size();
  while (at > 0 && text[at - 1] == '\n') --at;
  for (std::size_t seen = 0; at > 0; --at) {
    if (text[at - 1] == '\n' && ++seen == count) break;
  }
  return text.substr(at);
}

// A pod the scheduler refused. Hopeless only when no node of the slice exists: with nodes (or a
// pool being made), a refusal is the usual wait for a node to free up or join.
std::optional<std::string> UnschedulableProblem(const nlohmann::json& pod, const std::string& tpu_type) {
  const auto conditions = core::ArrayAt(core::ObjectAt(pod, "status"), "conditions");
  for (const auto& condition : conditions) {
    if (core::StringAt(condition, "type") != "PodScheduled" || core::StringAt(condition, "status") != "False" ||
        core::StringAt(condition, "reason") != "Unschedulable") {
      continue;
    }
    return "pod " + core::StringAt(core::ObjectAt(pod, "metadata"), "name") +
           " cannot be scheduled: " + core::StringAt(condition, "message") + "; the cluster has no node of a " +
           tpu_type +
           " slice: add one (serve up --create-nodepool --cluster NAME, or tputrain nodepool create --tpu-type " +
           tpu_type + ")";
  }
  return std::nullopt;
}

// One container of pod `pod` that cannot get better: its line, or nothing.
std::optional<std::string> ContainerProblem(const std::string& pod, const nlohmann::json& container) {
  const auto waiting = core::ObjectAt(core::ObjectAt(container, "state"), "waiting");
  const std::string reason = core::StringAt(waiting, "reason");
  if (std::find(std::begin(kHopeless), std::end(kHopeless), reason) != std::end(kHopeless)) {
    std::string line = "pod " + pod + " container " + core::StringAt(container, "name") + ": " + reason;
    if (!core::StringAt(waiting, "message").empty()) line += ": " + core::StringAt(waiting, "message");
    return line;
  }
  const auto last = core::ObjectAt(core::ObjectAt(container, "lastState"), "terminated");
  if (core::StringAt(last, "reason") == "OOMKilled") {
    return "pod " + pod + " container " + core::StringAt(container, "name") +
           ": OOMKilled (the model does not fit the container's memory; a larger slice or int8 weights)";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> PodProblem(const nlohmann::json& pod) {
  const std::string name = core::StringAt(core::ObjectAt(pod, "metadata"), "name");
  for (const auto& container : core::ArrayAt(core::ObjectAt(pod, "status"), "containerStatuses")) {
    if (auto problem = ContainerProblem(name, container)) return problem;
  }
  return std::nullopt;
}

namespace serve_pods {

bool ConditionTrue(const nlohmann::json& object, const std::string& type) {
  const auto conditions = core::ArrayAt(core::ObjectAt(object, "status"), "conditions");
  return std::any_of(conditions.begin(), conditions.end(), [&](const nlohmann::json& condition) {
    return core::StringAt(condition, "type") == type && core::StringAt(condition, "status") == "True";
  });
}

int CountReady(const nlohmann::json& pods) {
  const auto items = core::ArrayAt(pods, "items");
  return static_cast<int>(
      std::count_if(items.begin(), items.end(), [](const nlohmann::json& pod) { return ConditionTrue(pod, "Ready"); }));
}

std::string LogTail(k8s::Client& client, const std::string& ns, const std::string& pod, const std::string& container,
                    int64_t lines, bool previous) {
  k8s::PodLogOptions options;
  options.container = container;
  options.tail_lines = lines;
  options.previous = previous;
  std::string text;
  auto read = k8s::StreamPodLog(client, ns, pod, options, nullptr, [&](std::string_view chunk) {
    text.append(chunk);
    return text.size() < (1 << 20);
  });
  return read ? text : "";
}

bool WarnWithoutNodes(k8s::Client& client, core::Reporter& reporter, const std::string& tpu_type) {
  auto values = SliceTemplateValues(tpu_type, 1);
  if (!values) return false;
  std::string accelerator;
  std::string topology;
  for (const auto& value : *values) {
    if (value.name == "GKE_ACCELERATOR") accelerator = value.value;
    if (value.name == "TPU_TOPOLOGY") topology = value.value;
  }
  if (accelerator.empty() || topology.empty()) return false;
  const std::string selector =
      "cloud.google.com/gke-tpu-accelerator=" + accelerator + ",cloud.google.com/gke-tpu-topology=" + topology;
  auto nodes = client.GetJson("/api/v1/nodes?labelSelector=" + http::UrlEncode(selector), "nodes");
  if (!nodes) return false;  // a user who may not list nodes still deploys
  if (!core::ArrayAt(*nodes, "items").empty()) return false;
  reporter.Warn("no node of a " + tpu_type + " slice (" + accelerator + ", " + topology +
                ") yet: the pods stay Pending until one exists (tputrain nodepool create ... --tpu-type " + tpu_type +
                ")");
  return true;
}

core::Result<bool> EnsureSliceNodes(const PoolCreator& create_pools, k8s::Client& client, core::Reporter& reporter,
                                    const SliceNodes& nodes) {
  auto capacity = ResolveCapacity(nodes.capacity);
  if (!capacity) return core::Fail(capacity.error());
  if (!nodes.create) {
    if (capacity->mode == CapacityMode::kFlexStart) return false;  // the pools grow when the pods wait
    return WarnWithoutNodes(client, reporter, nodes.tpu_type);
  }
  if (!create_pools) {
    return core::Fail(core::Error::Usage("--create-nodepool: needs --cluster (the GKE cluster to add the pool to)"));
  }
  TpuPoolRequest request;
  request.tpu_type = nodes.tpu_type;
  request.num_slices = nodes.slices;
  request.capacity = nodes.capacity;
  auto pools = NodePoolsFor(nodes.pool, request);
  if (!pools) return core::Fail(pools.error());
  if (!nodes.dry_run) {
    if (auto created = create_pools(*pools); !created) return core::Fail(created.error());
  }
  return false;
}

std::optional<core::Error> HopelessPod(k8s::Client& client, const std::string& ns, const nlohmann::json& pods,
                                       const std::string& tpu_type, bool no_nodes,
                                       const std::string& default_container) {
  const auto items = core::ArrayAt(pods, "items");
  for (const auto& pod : items) {
    if (no_nodes) {
      if (auto unschedulable = UnschedulableProblem(pod, tpu_type)) {
        return core::Error::Make(core::ErrorKind::kFailedPrecondition, *unschedulable);
      }
    }
    // The lines shown are the named container's: a sibling that is not ready either (jax-tpu
    // while the pathways-rm it needs crash-loops too) must not lend its log to the message.
    const std::string name = core::StringAt(core::ObjectAt(pod, "metadata"), "name");
    for (const auto& status : core::ArrayAt(core::ObjectAt(pod, "status"), "containerStatuses")) {
      auto problem = ContainerProblem(name, status);
      if (!problem) continue;
      const std::string container =
          core::StringAt(status, "name").empty() ? default_container : core::StringAt(status, "name");
      // A container running again after its OOM kill: the lines that matter are the killed one's.
      const bool restarted = core::ObjectAt(status, "state").contains("running");
      std::string tail = LastLines(LogTail(client, ns, name, container, 20, restarted), 10);
      while (!tail.empty() && tail.back() == '\n') tail.pop_back();  // the message's own end ends it
      if (!tail.empty()) *problem += "; its last log lines:\n" + tail;
      return core::Error::Make(core::ErrorKind::kFailedPrecondition, *problem);
    }
  }
  return std::nullopt;
}

core::Result<nlohmann::json> Pods(k8s::Client& client, const std::string& ns, const std::string& selector) {
  return client.GetJson(
      "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods?labelSelector=" + http::UrlEncode(selector), "pods");
}

core::Result<nlohmann::json> LivePods(k8s::Client& client, const std::string& ns, const std::string& selector,
                                      const std::string& tpu_type, bool no_nodes,
                                      const std::string& default_container) {
  auto pods = Pods(client, ns, selector);
  if (!pods) return core::Fail(pods.error());
  if (auto hopeless = HopelessPod(client, ns, *pods, tpu_type, no_nodes, default_container)) {
    return core::Fail(*hopeless);
  }
  return pods;
}

}  // namespace serve_pods
}  // namespace tputrain::workflow
