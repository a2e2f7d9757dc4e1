#include "tputrain/k8s/readiness.h"

#include "tputrain/core/json_fields.h"

namespace tputrain::k8s {
namespace {

const nlohmann::json& Status(const nlohmann::json& object) { return core::ObjectAt(object, "status"); }

const nlohmann::json* Condition(const nlohmann::json& object, std::string_view type) {
  for (const auto& condition : core::ArrayAt(Status(object), "conditions")) {
    if (core::StringAt(condition, "type") == type) return &condition;
  }
  return nullptr;
}

std::string ConditionText(const nlohmann::json* condition) {
  if (condition == nullptr) return "";
  std::string text = core::StringAt(*condition, "reason");
  std::string message = core::StringAt(*condition, "message");
  if (!message.empty()) text += (text.empty() ? "" : ": ") + message;
  return text;
}

// KubeRay's message is errors.Join(reason marker, the API error): "FailedCreateWorkerPod\nPod ...".
// The reason is said once, and the message kept on one line.
std::string ReplicaFailureText(const nlohmann::json& condition) {
  std::string reason = core::StringAt(condition, "reason");
  std::string message = core::StringAt(condition, "message");
  if (!reason.empty() && message.rfind(reason + "\n", 0) == 0) message.erase(0, reason.size() + 1);
  for (auto& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (reason.empty()) return message;
  return message.empty() ? reason : reason + ": " + message;
}

bool GenerationCaughtUp(const nlohmann::json& object) {
  int64_t observed = core::IntAt(Status(object), "observedGeneration", -1);
  if (observed < 0) return true;
  return observed >= core::IntAt(core::ObjectAt(object, "metadata"), "generation", 0);
}

Verdict ByCondition(const nlohmann::json& object, std::string_view ready, std::string_view failed,
                    std::string_view what) {
  if (!failed.empty() && ConditionStatus(object, failed) == "True") {
    return Verdict::Failed(std::string(failed) + ": " + ConditionText(Condition(object, failed)));
  }
  if (ConditionStatus(object, ready) == "True") return Verdict::Done();
  std::string text = ConditionText(Condition(object, ready));
  return Verdict::Waiting(std::string(what) + " not yet " + std::string(ready) +
                          (text.empty() ? "" : " (" + text + ")"));
}

}  // namespace

std::string ConditionStatus(const nlohmann::json& object, std::string_view type) {
  const auto* condition = Condition(object, type);
  return condition == nullptr ? "" : core::StringAt(*condition, "status");
}

Verdict ReadyVerdict(std::string_view kind, const nlohmann::json* object) {
  if (object == nullptr) return Verdict::Waiting("not found");
  const auto& obj = *object;
  const auto& status = Status(obj);
  if (kind == "RayCluster") {
    // KubeRay cannot create (or delete) the cluster's pods: the API server refused them. It
    // retries the same spec forever, so waiting longer cannot help.
    if (const auto* failure = Condition(obj, "ReplicaFailure");
        failure != nullptr && core::StringAt(*failure, "status") == "True") {
      return Verdict::Failed("ReplicaFailure: " + ReplicaFailureText(*failure));
    }
    std::string state = core::StringAt(status, "state");
    if (state == "ready" && GenerationCaughtUp(obj)) return Verdict::Done();
    std::string detail = "state is " + (state.empty() ? std::string("not set") : "\"" + state + "\"");
    if (auto reason = core::StringAt(status, "reason"); !reason.empty()) detail += " (" + reason + ")";
    return Verdict::Waiting(detail);
  }
  if (kind == "LeaderWorkerSet") return ByCondition(obj, "Available", "", "LeaderWorkerSet");
  if (kind == "JobSet") {
    // A training JobSet completes; a serving one (Saxml's model servers) never does and is
    // ready once every child Job has all its pods ready (replicatedJobsStatus[].ready).
    auto verdict = ByCondition(obj, "Completed", "Failed", "JobSet");
    if (verdict.state != Verdict::State::kWaiting) return verdict;
    int64_t want = 0;
    for (const auto& job : core::ArrayAt(core::ObjectAt(obj, "spec"), "replicatedJobs"))
      want += core::IntAt(job, "replicas", 1);
    int64_t ready = 0;
    for (const auto& job : core::ArrayAt(status, "replicatedJobsStatus")) ready += core::IntAt(job, "ready", 0);
    if (want > 0 && ready >= want) return Verdict::Done();
    return Verdict::Waiting(std::to_string(ready) + "/" + std::to_string(want) + " jobs with every pod ready");
  }
  if (kind == "Service") {
    // A LoadBalancer is usable once the cloud gave it an address; other Services at once.
    if (core::StringAt(core::ObjectAt(obj, "spec"), "type") != "LoadBalancer") return Verdict::Done();
    if (!core::ArrayAt(core::ObjectAt(status, "loadBalancer"), "ingress").empty()) return Verdict::Done();
    return Verdict::Waiting("LoadBalancer has no ingress address yet");
  }
  if (kind == "Job") return ByCondition(obj, "Complete", "Failed", "Job");
  if (kind == "CustomResourceDefinition") return ByCondition(obj, "Established", "", "CRD");
  if (kind == "Deployment") {
    int64_t want = core::IntAt(core::ObjectAt(obj, "spec"), "replicas", 1);
    int64_t have = core::IntAt(status, "availableReplicas", 0);
    if (have >= want && GenerationCaughtUp(obj)) return Verdict::Done();
    return Verdict::Waiting(std::to_string(have) + "/" + std::to_string(want) + " replicas available");
  }
  if (kind == "Pod") {
    std::string phase = core::StringAt(status, "phase");
    if (phase.empty()) phase = "Pending";
    if (phase == "Failed" || phase == "Succeeded") return Verdict::Failed("pod " + phase + " (it will never be Ready)");
    if (ConditionStatus(obj, "Ready") == "True") return Verdict::Done();
    return Verdict::Waiting("pod " + phase + ", not Ready");
  }
  if (kind == "Namespace") {
    std::string phase = core::StringAt(status, "phase");
    return phase == "Active" ? Verdict::Done() : Verdict::Waiting("phase " + phase);
  }
  return Verdict::Done();
}

Verdict GoneVerdict(const nlohmann::json* object) {
  if (object == nullptr) return Verdict::Done();
  std::string detail = "still present";
  const auto& finalizers = core::ArrayAt(core::ObjectAt(*object, "metadata"), "finalizers");
  if (!finalizers.empty()) detail += ", waiting for finalizers " + finalizers.dump();
  return Verdict::Waiting(detail);
}

std::string PodSelectorFor(std::string_view kind, const nlohmann::json& object) {
  std::string name = core::StringAt(core::ObjectAt(object, "metadata"), "name");
  if (kind == "RayCluster") return "ray.io/cluster=" + name;
  if (kind == "LeaderWorkerSet") return "leaderworkerset.sigs.k8s.io/name=" + name;
  if (kind == "JobSet") return "jobset.sigs.k8s.io/jobset-name=" + name;
  if (kind == "Job") return "batch.kubernetes.io/job-name=" + name;
  if (kind == "Deployment") {
    std::string selector;
    for (const auto& [key, value] :
         core::ObjectAt(core::ObjectAt(core::ObjectAt(object, "spec"), "selector"), "matchLabels").items()) {
      if (value.is_string()) selector += (selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
    }
    return selector;
  }
  return "";
}

}  // namespace tputrain::k8s
