#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

const nlohmann::json& Status(const nlohmann::json& object) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  return object.contains("status") && object["status"].is_object() ? object["status"] : kEmpty;
}

const nlohmann::json* Condition(const nlohmann::json& object, std::string_view type) {
  const auto& status = Status(object);
  if (!status.contains("conditions") || !status["conditions"].is_array()) return nullptr;
  for (const auto& condition : status["conditions"]) {
    if (condition.is_object() && condition.value("type", "") == type) return &condition;
  }
  return nullptr;
}

std::string ConditionText(const nlohmann::json* condition) {
  if (condition == nullptr) return "";
  std::string text = condition->value("reason", "");
  std::string message = condition->value("message", "");
  if (!message.empty()) text += (text.empty() ? "" : ": ") + message;
  return text;
}

bool GenerationCaughtUp(const nlohmann::json& object) {
  const auto& status = Status(object);
  if (!status.contains("observedGeneration") || !object.contains("metadata")) return true;
  return status["observedGeneration"].get<int64_t>() >= object["metadata"].value("generation", int64_t{0});
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

int64_t IntAt(const nlohmann::json& object, const char* key, int64_t fallback) {
  return object.contains(key) && object[key].is_number_integer() ? object[key].get<int64_t>() : fallback;
}

}  // namespace

std::string ConditionStatus(const nlohmann::json& object, std::string_view type) {
  const auto* condition = Condition(object, type);
  return condition == nullptr ? "" : condition->value("status", "");
}

Verdict ReadyVerdict(std::string_view kind, const nlohmann::json* object) {
  if (object == nullptr) return Verdict::Waiting("not found");
  const auto& obj = *object;
  const auto& status = Status(obj);
  if (kind == "RayCluster") {
    std::string state = status.value("state", "");
    if (state == "ready" && GenerationCaughtUp(obj)) return Verdict::Done();
    std::string detail = "state is " + (state.empty() ? std::string("not set") : "\"" + state + "\"");
    if (auto reason = status.value("reason", ""); !reason.empty()) detail += " (" + reason + ")";
    return Verdict::Waiting(detail);
  }
  if (kind == "LeaderWorkerSet") return ByCondition(obj, "Available", "", "LeaderWorkerSet");
  if (kind == "JobSet") {
    // A training JobSet completes; a serving one (Saxml's model servers) never does and is
    // ready once every child Job has all its pods ready (replicatedJobsStatus[].ready).
    auto verdict = ByCondition(obj, "Completed", "Failed", "JobSet");
    if (verdict.state != Verdict::State::kWaiting) return verdict;
    int64_t want = 0;
    const auto spec = obj.value("spec", nlohmann::json::object());
    for (const auto& job : spec.value("replicatedJobs", nlohmann::json::array())) want += IntAt(job, "replicas", 1);
    int64_t ready = 0;
    for (const auto& job : status.value("replicatedJobsStatus", nlohmann::json::array()))
      ready += IntAt(job, "ready", 0);
    if (want > 0 && ready >= want) return Verdict::Done();
    return Verdict::Waiting(std::to_string(ready) + "/" + std::to_string(want) + " jobs with every pod ready");
  }
  if (kind == "Service") {
    // A LoadBalancer is usable once the cloud gave it an address; other Services at once.
    if (obj.value("spec", nlohmann::json::object()).value("type", "") != "LoadBalancer") return Verdict::Done();
    const auto ingress =
        status.value("loadBalancer", nlohmann::json::object()).value("ingress", nlohmann::json::array());
    if (!ingress.empty()) return Verdict::Done();
    return Verdict::Waiting("LoadBalancer has no ingress address yet");
  }
  if (kind == "Job") return ByCondition(obj, "Complete", "Failed", "Job");
  if (kind == "CustomResourceDefinition") return ByCondition(obj, "Established", "", "CRD");
  if (kind == "Deployment") {
    int64_t want = obj.contains("spec") ? IntAt(obj["spec"], "replicas", 1) : 1;
    int64_t have = IntAt(status, "availableReplicas", 0);
    if (have >= want && GenerationCaughtUp(obj)) return Verdict::Done();
    return Verdict::Waiting(std::to_string(have) + "/" + std::to_string(want) + " replicas available");
  }
  if (kind == "Pod") {
    std::string phase = status.value("phase", "Pending");
    if (phase == "Failed" || phase == "Succeeded") return Verdict::Failed("pod " + phase + " (it will never be Ready)");
    if (ConditionStatus(obj, "Ready") == "True") return Verdict::Done();
    return Verdict::Waiting("pod " + phase + ", not Ready");
  }
  if (kind == "Namespace") {
    std::string phase = status.value("phase", "");
    return phase == "Active" ? Verdict::Done() : Verdict::Waiting("phase " + phase);
  }
  return Verdict::Done();
}

Verdict GoneVerdict(const nlohmann::json* object) {
  if (object == nullptr) return Verdict::Done();
  std::string detail = "still present";
  const auto& metadata = object->contains("metadata") ? (*object)["metadata"] : nlohmann::json();
  if (metadata.is_object() && metadata.contains("finalizers") && metadata["finalizers"].is_array() &&
      !metadata["finalizers"].empty()) {
    detail += ", waiting for finalizers " + metadata["finalizers"].dump();
  }
  return Verdict::Waiting(detail);
}

std::string PodSelectorFor(std::string_view kind, const nlohmann::json& object) {
  std::string name = object.contains("metadata") ? object["metadata"].value("name", "") : "";
  if (kind == "RayCluster") return "ray.io/cluster=" + name;
  if (kind == "LeaderWorkerSet") return "leaderworkerset.sigs.k8s.io/name=" + name;
  if (kind == "JobSet") return "jobset.sigs.k8s.io/jobset-name=" + name;
  if (kind == "Job") return "batch.kubernetes.io/job-name=" + name;
  if (kind == "Deployment" && object.contains("spec") && object["spec"].contains("selector")) {
    const auto& labels = object["spec"]["selector"].value("matchLabels", nlohmann::json::object());
    std::string selector;
    for (const auto& [key, value] : labels.items()) {
      selector += (selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
    }
    return selector;
  }
  return "";
}

}  // namespace tputrain::k8s
