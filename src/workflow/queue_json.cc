// The queue commands' --format json|yaml: their contract, from the outcomes.
#include "tputrain/workflow/queue.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
namespace kueue = k8s::kueue;

json QuotaJson(const kueue::ClusterQueueStatus& cq) {
  json quota = json::array();
  for (const auto& item : cq.quota) {
    quota.push_back(
        {{"flavor", item.flavor}, {"resource", item.resource}, {"nominal", item.nominal}, {"used", item.reserved}});
  }
  return quota;
}

json ConditionsJson(const std::vector<kueue::Condition>& conditions) {
  json out = json::array();
  for (const auto& c : conditions) {
    out.push_back({{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}});
  }
  return out;
}

}  // namespace

json ToJson(const QueueCreateOutcome& created) {
  json shapes = json::array();
  for (const auto& shape : created.shapes) {
    shapes.push_back({{"accelerator", shape.accelerator},
                      {"topology", shape.topology},
                      {"chips", shape.chips},
                      {"flavor", kueue::FlavorName(created.cluster_queue, shape)}});
  }
  json applied = json::array();
  for (const auto& result : created.applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"namespace", result.object.ns},
                       {"name", result.object.name},
                       {"action", std::string(k8s::ApplyActionName(result.action, created.dry_run))}});
  }
  const bool installed = created.kueue == KueueInstall::kInstalled;
  return {{"queue", created.cluster_queue},
          {"local_queue", created.local_queue},
          {"kueue", installed ? "installed" : "found"},
          {"kueue_version", installed ? KueueOperator().version : ""},
          {"flavors", shapes},
          {"applied", applied},
          {"run", created.run_id}};
}

json ToJson(const QueueDeleteOutcome& deleted) {
  json gone = json::array();
  for (const auto& result : deleted.deleted) {
    gone.push_back({{"kind", result.object.kind},
                    {"namespace", result.object.ns},
                    {"name", result.object.name},
                    {"deleted", result.existed}});
  }
  return {{"deleted", gone}, {"kept", deleted.kept}, {"run", deleted.run_id}};
}

json ToJson(const std::vector<QueueSummary>& queues) {
  json out = json::array();
  for (const auto& queue : queues) {
    out.push_back({{"name", queue.name},
                   {"namespace", queue.ns},
                   {"cluster_queue", queue.cluster_queue.name},
                   {"active", queue.cluster_queue.active},
                   {"pending", queue.pending},
                   {"admitted", queue.admitted},
                   {"quota", QuotaJson(queue.cluster_queue)},
                   {"admission_checks", queue.cluster_queue.checks}});
  }
  return out;
}

json ToJson(const QueueDescription& description) {
  const auto& cq = description.summary.cluster_queue;
  json checks = json::array();
  for (size_t i = 0; i < description.check_names.size(); ++i) {
    checks.push_back({{"name", description.check_names[i]},
                      {"active", description.check_conditions[i].status},
                      {"message", description.check_conditions[i].message}});
  }
  json workloads = json::array();
  for (const auto& workload : description.workloads) workloads.push_back(ToJson(WorkloadReport{workload, cq, {}}));
  return {{"name", description.summary.name},
          {"namespace", description.summary.ns},
          {"cluster_queue", cq.name},
          {"active", cq.active},
          {"inactive_reason", cq.inactive_message},
          {"quota", QuotaJson(cq)},
          {"flavors", description.flavors},
          {"admission_checks", checks},
          {"workloads", workloads}};
}

json ToJson(const WorkloadReport& report) {
  const auto& w = report.workload;
  json checks = json::array();
  for (const auto& check : w.checks) {
    checks.push_back(
        {{"name", check.name}, {"state", check.state}, {"message", check.message}, {"retries", check.retry_count}});
  }
  json requests = json::array();
  for (const auto& request : report.provisioning) {
    requests.push_back({{"name", request.name}, {"conditions", ConditionsJson(request.conditions)}});
  }
  return {{"workload", w.name},
          {"namespace", w.ns},
          {"kind", w.owner_kind},
          {"name", w.owner_name},
          {"queue", w.queue},
          {"cluster_queue", w.cluster_queue},
          {"state", std::string(kueue::WorkloadPhaseName(w.phase))},
          {"admitted", w.phase == kueue::WorkloadPhase::kAdmitted},
          {"position", w.position == 0 ? json() : json(w.position)},
          {"message", w.message},
          {"flavors", w.flavors},
          {"quota", report.cluster_queue ? QuotaJson(*report.cluster_queue) : json::array()},
          {"admission_checks", checks},
          {"provisioning_requests", requests},
          {"summary", WorkloadLine(report)}};
}

json ToJson(const std::vector<WorkloadReport>& reports) {
  json out = json::array();
  for (const auto& report : reports) out.push_back(ToJson(report));
  return out;
}

}  // namespace tputrain::workflow
