#include "commands/queue_output.h"

#include "output/output.h"

namespace tputrain::cli {
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

std::string TpuQuotaText(const kueue::ClusterQueueStatus& cq) {
  std::string text;
  for (const auto& item : cq.quota) {
    if (item.resource == kueue::kTpuResource) text += (text.empty() ? "" : ", ") + item.reserved + "/" + item.nominal;
  }
  return text.empty() ? "-" : text;
}

json ConditionsJson(const std::vector<kueue::Condition>& conditions) {
  json out = json::array();
  for (const auto& c : conditions) {
    out.push_back({{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}});
  }
  return out;
}

}  // namespace

void PrintQueueCreated(Context& context, const workflow::QueueCreateOutcome& created, const std::string& run_id,
                       bool dry_run) {
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
                       {"action", std::string(k8s::ApplyActionName(result.action, dry_run))}});
  }
  const bool installed = created.kueue == workflow::KueueInstall::kInstalled;
  json out = {{"queue", created.cluster_queue},
              {"local_queue", created.local_queue},
              {"kueue", installed ? "installed" : "found"},
              {"kueue_version", installed ? workflow::KueueOperator().version : ""},
              {"flavors", shapes},
              {"applied", applied},
              {"run", run_id}};
  PrintResult(context, out, [&](std::ostream& stream) {
    stream << "Kueue " << (installed ? workflow::KueueOperator().version + " installed (run " + run_id + ")" : "found")
           << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& shape : created.shapes) {
      rows.push_back({kueue::FlavorName(created.cluster_queue, shape), shape.accelerator, shape.topology,
                      std::to_string(shape.chips)});
    }
    PrintTable(stream, {"flavor", "accelerator", "topology", "chips"}, rows);
    stream << "queue " << created.local_queue << " (ClusterQueue " << created.cluster_queue
           << "): label workloads kueue.x-k8s.io/queue-name=" << created.cluster_queue << ", or pass --queue "
           << created.cluster_queue << " to submit, serve up and apply\n";
  });
}

void PrintQueueDeleted(Context& context, const workflow::QueueDeleteOutcome& deleted, const std::string& run_id) {
  json gone = json::array();
  for (const auto& result : deleted.deleted) {
    gone.push_back({{"kind", result.object.kind},
                    {"namespace", result.object.ns},
                    {"name", result.object.name},
                    {"deleted", result.existed}});
  }
  PrintResult(context, {{"deleted", gone}, {"kept", deleted.kept}, {"run", run_id}}, [&](std::ostream& stream) {
    for (const auto& result : deleted.deleted) stream << result.object.Describe() << " deleted\n";
    for (const auto& kept : deleted.kept) stream << kept << " kept: not made by run " << run_id << "\n";
    stream << "Kueue itself stays: `tputrain cleanup --run RUN` removes an install that run made\n";
  });
}

void PrintQueueList(Context& context, const std::vector<workflow::QueueSummary>& queues) {
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& queue : queues) {
    out.push_back({{"name", queue.name},
                   {"namespace", queue.ns},
                   {"cluster_queue", queue.cluster_queue.name},
                   {"active", queue.cluster_queue.active},
                   {"pending", queue.pending},
                   {"admitted", queue.admitted},
                   {"quota", QuotaJson(queue.cluster_queue)},
                   {"admission_checks", queue.cluster_queue.checks}});
    rows.push_back({queue.name, queue.ns, queue.cluster_queue.name, TpuQuotaText(queue.cluster_queue),
                    std::to_string(queue.pending), std::to_string(queue.admitted),
                    queue.cluster_queue.checks.empty() ? "-" : "provisioning"});
  }
  PrintResult(context, out, [&](std::ostream& stream) {
    PrintTable(stream, {"name", "namespace", "cluster queue", "tpu used/nominal", "pending", "admitted", "checks"},
               rows);
  });
}

void PrintQueueDescription(Context& context, const workflow::QueueDescription& description) {
  const auto& cq = description.summary.cluster_queue;
  json checks = json::array();
  for (size_t i = 0; i < description.check_names.size(); ++i) {
    checks.push_back({{"name", description.check_names[i]},
                      {"active", description.check_conditions[i].status},
                      {"message", description.check_conditions[i].message}});
  }
  json workloads = json::array();
  for (const auto& workload : description.workloads) {
    workflow::WorkloadReport report{workload, cq, {}};
    workloads.push_back(WorkloadReportJson(report));
  }
  json out = {{"name", description.summary.name},
              {"namespace", description.summary.ns},
              {"cluster_queue", cq.name},
              {"active", cq.active},
              {"inactive_reason", cq.inactive_message},
              {"quota", QuotaJson(cq)},
              {"flavors", description.flavors},
              {"admission_checks", checks},
              {"workloads", workloads}};
  PrintResult(context, out, [&](std::ostream& stream) {
    stream << "queue " << description.summary.ns << "/" << description.summary.name << " → ClusterQueue " << cq.name
           << (cq.active ? " (active)" : " (inactive: " + cq.inactive_message + ")") << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : cq.quota) rows.push_back({item.flavor, item.resource, item.reserved, item.nominal});
    PrintTable(stream, {"flavor", "resource", "used", "nominal"}, rows);
    for (const auto& check : checks) {
      stream << "admission check " << check["name"].get<std::string>() << ": active "
             << check["active"].get<std::string>() << " " << check["message"].get<std::string>() << "\n";
    }
    for (const auto& workload : description.workloads) {
      workflow::WorkloadReport report{workload, cq, {}};
      stream << workload.owner_kind << "/" << workload.owner_name << ": " << workflow::WorkloadLine(report) << "\n";
    }
  });
}

json WorkloadReportJson(const workflow::WorkloadReport& report) {
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
          {"summary", workflow::WorkloadLine(report)}};
}

void PrintWorkloadReports(Context& context, const std::vector<workflow::WorkloadReport>& reports) {
  json out = json::array();
  for (const auto& report : reports) out.push_back(WorkloadReportJson(report));
  PrintResult(context, out, [&](std::ostream& stream) {
    if (reports.empty()) stream << "no workloads in the queue\n";
    for (const auto& report : reports) {
      stream << report.workload.owner_kind << "/" << report.workload.owner_name << " (" << report.workload.queue
             << "): " << workflow::WorkloadLine(report) << "\n";
    }
  });
}

}  // namespace tputrain::cli
