#include "tputrain/k8s/kueue_status.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "tputrain/core/json_fields.h"

namespace tputrain::k8s::kueue {
namespace {

using nlohmann::json;

const Condition* Find(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& condition : conditions) {
    if (condition.type == type) return &condition;
  }
  return nullptr;
}

bool IsTrue(const std::vector<Condition>& conditions, const std::string& type) {
  const auto* condition = Find(conditions, type);
  return condition != nullptr && condition->status == "True";
}

// A quantity as the API writes it: a string, or a bare number.
std::string Quantity(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return "0";
}

// The object Kueue made the Workload for. A job's Workload has it as its controller. The Workload
// of a LeaderWorkerSet group (or a StatefulSet) has no controller: the set and, once Kueue adds
// them, each pod of the group own it, so the last owner is a Pod; Kueue names the set in its
// job-owner annotations ("leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet").
std::pair<std::string, std::string> OwnerOf(const json& metadata) {
  const auto& annotations = core::ObjectAt(metadata, "annotations");
  std::string gvk = core::StringAt(annotations, "kueue.x-k8s.io/job-owner-gvk");
  std::string named = core::StringAt(annotations, "kueue.x-k8s.io/job-owner-name");
  if (auto kind_at = gvk.find("Kind="); kind_at != std::string::npos && !named.empty()) {
    return {gvk.substr(kind_at + 5), named};
  }
  // Without them (an older Kueue), the controller, else the first owner that is not a pod.
  std::pair<std::string, std::string> chosen;
  for (const auto& reference : core::ArrayAt(metadata, "ownerReferences")) {
    std::pair<std::string, std::string> owner{core::StringAt(reference, "kind"), core::StringAt(reference, "name")};
    if (core::BoolAt(reference, "controller", false)) return owner;
    if (chosen.first.empty() || (chosen.first == "Pod" && owner.first != "Pod")) chosen = owner;
  }
  return chosen;
}

}  // namespace

std::string_view WorkloadPhaseName(WorkloadPhase phase) {
  switch (phase) {
    case WorkloadPhase::kPending:
      return "pending";
    case WorkloadPhase::kQuotaReserved:
      return "quota reserved";
    case WorkloadPhase::kAdmitted:
      return "admitted";
    case WorkloadPhase::kFinished:
      return "finished";
  }
  return "pending";
}

std::vector<Condition> ConditionsOf(const json& object) {
  std::vector<Condition> conditions;
  for (const auto& item : core::ArrayAt(core::ObjectAt(object, "status"), "conditions")) {
    conditions.push_back({core::StringAt(item, "type"), core::StringAt(item, "status"), core::StringAt(item, "reason"),
                          core::StringAt(item, "message"), core::StringAt(item, "lastTransitionTime")});
  }
  return conditions;
}

WorkloadStatus ParseWorkload(const json& workload) {
  WorkloadStatus out;
  const auto& metadata = core::ObjectAt(workload, "metadata");
  const auto& spec = core::ObjectAt(workload, "spec");
  const auto& status = core::ObjectAt(workload, "status");
  out.name = core::StringAt(metadata, "name");
  out.ns = core::StringAt(metadata, "namespace");
  std::tie(out.owner_kind, out.owner_name) = OwnerOf(metadata);
  out.queue = core::StringAt(spec, "queueName");
  out.priority = core::IntAt(spec, "priority", 0);
  out.cluster_queue = core::StringAt(core::ObjectAt(status, "admission"), "clusterQueue");
  out.conditions = ConditionsOf(workload);
  out.queued_since = core::StringAt(metadata, "creationTimestamp");
  // An evicted workload rejoins the queue at its eviction (Kueue's default requeuing timestamp).
  if (const auto* evicted = Find(out.conditions, "Evicted"); evicted != nullptr && evicted->status == "True") {
    out.queued_since = evicted->since;
  }
  if (IsTrue(out.conditions, "Finished")) {
    out.phase = WorkloadPhase::kFinished;
  } else if (IsTrue(out.conditions, "Admitted")) {
    out.phase = WorkloadPhase::kAdmitted;
  } else if (IsTrue(out.conditions, "QuotaReserved")) {
    out.phase = WorkloadPhase::kQuotaReserved;
  }
  const char* said = out.phase == WorkloadPhase::kFinished ? "Finished" : "QuotaReserved";
  if (const auto* condition = Find(out.conditions, said)) out.message = condition->message;
  for (const auto& assignment : core::ArrayAt(core::ObjectAt(status, "admission"), "podSetAssignments")) {
    for (const auto& [resource, flavor] : core::ObjectAt(assignment, "flavors").items()) {
      if (!flavor.is_string()) continue;
      if (std::find(out.flavors.begin(), out.flavors.end(), flavor.get<std::string>()) == out.flavors.end()) {
        out.flavors.push_back(flavor.get<std::string>());
      }
    }
  }
  for (const auto& check : core::ArrayAt(status, "admissionChecks")) {
    out.checks.push_back({core::StringAt(check, "name"), core::StringAt(check, "state"),
                          core::StringAt(check, "message"), core::IntAt(check, "retryCount", 0)});
  }
  return out;
}

void AssignPositions(std::vector<WorkloadStatus>& workloads) {
  std::map<std::string, std::vector<WorkloadStatus*>> pending;  // by ClusterQueue
  for (auto& workload : workloads) {
    workload.position = 0;
    if (workload.phase == WorkloadPhase::kPending && !workload.cluster_queue.empty()) {
      pending[workload.cluster_queue].push_back(&workload);
    }
  }
  for (auto& [queue, list] : pending) {
    // RFC 3339 times in UTC from one server compare as text.
    std::stable_sort(list.begin(), list.end(), [](const WorkloadStatus* a, const WorkloadStatus* b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      if (a->queued_since != b->queued_since) return a->queued_since < b->queued_since;
      return a->ns + "/" + a->name < b->ns + "/" + b->name;
    });
    for (size_t i = 0; i < list.size(); ++i) list[i]->position = static_cast<int>(i + 1);
  }
}

ClusterQueueStatus ParseClusterQueue(const json& cluster_queue) {
  ClusterQueueStatus out;
  out.name = core::StringAt(core::ObjectAt(cluster_queue, "metadata"), "name");
  const auto& spec = core::ObjectAt(cluster_queue, "spec");
  const auto& status = core::ObjectAt(cluster_queue, "status");
  std::map<std::pair<std::string, std::string>, std::string> reserved;
  for (const auto& flavor : core::ArrayAt(status, "flavorsReservation")) {
    for (const auto& resource : core::ArrayAt(flavor, "resources")) {
      reserved[{core::StringAt(flavor, "name"), core::StringAt(resource, "name")}] =
          Quantity(resource.contains("total") ? resource["total"] : json());
    }
  }
  for (const auto& group : core::ArrayAt(spec, "resourceGroups")) {
    for (const auto& flavor : core::ArrayAt(group, "flavors")) {
      for (const auto& resource : core::ArrayAt(flavor, "resources")) {
        FlavorQuota quota{core::StringAt(flavor, "name"), core::StringAt(resource, "name"),
                          Quantity(resource.contains("nominalQuota") ? resource["nominalQuota"] : json())};
        auto used = reserved.find({quota.flavor, quota.resource});
        if (used != reserved.end()) quota.reserved = used->second;
        out.quota.push_back(std::move(quota));
      }
    }
  }
  for (const auto& check : core::ArrayAt(core::ObjectAt(spec, "admissionChecksStrategy"), "admissionChecks")) {
    out.checks.push_back(core::StringAt(check, "name"));
  }
  out.pending = core::IntAt(status, "pendingWorkloads", 0);
  out.reserving = core::IntAt(status, "reservingWorkloads", 0);
  out.admitted = core::IntAt(status, "admittedWorkloads", 0);
  auto conditions = ConditionsOf(cluster_queue);
  if (const auto* active = Find(conditions, "Active")) {
    out.active = active->status == "True";
    if (!out.active) out.inactive_message = active->message;
  }
  return out;
}

}  // namespace tputrain::k8s::kueue
