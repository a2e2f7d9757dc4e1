#include "commands/queue_output.h"

#include "output/output.h"

namespace tputrain::cli {
namespace {

namespace kueue = k8s::kueue;

std::string TpuQuotaText(const kueue::ClusterQueueStatus& cq) {
  std::string text;
  for (const auto& item : cq.quota) {
    if (item.resource == kueue::kTpuResource) text += (text.empty() ? "" : ", ") + item.reserved + "/" + item.nominal;
  }
  return text.empty() ? "-" : text;
}

}  // namespace

void PrintQueueCreated(Context& context, const workflow::QueueCreateOutcome& created) {
  const bool installed = created.kueue == workflow::KueueInstall::kInstalled;
  PrintResult(context, workflow::ToJson(created), [&](std::ostream& stream) {
    stream << "Kueue "
           << (installed ? workflow::KueueOperator().version + " installed (run " + created.run_id + ")" : "found")
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

void PrintQueueDeleted(Context& context, const workflow::QueueDeleteOutcome& deleted) {
  PrintResult(context, workflow::ToJson(deleted), [&](std::ostream& stream) {
    for (const auto& result : deleted.deleted) stream << result.object.Describe() << " deleted\n";
    for (const auto& kept : deleted.kept) stream << kept << " kept: not made by run " << deleted.run_id << "\n";
    stream << "Kueue itself stays: `tputrain cleanup --run RUN` removes an install that run made\n";
  });
}

void PrintQueueList(Context& context, const std::vector<workflow::QueueSummary>& queues) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& queue : queues) {
    rows.push_back({queue.name, queue.ns, queue.cluster_queue.name, TpuQuotaText(queue.cluster_queue),
                    std::to_string(queue.pending), std::to_string(queue.admitted),
                    queue.cluster_queue.checks.empty() ? "-" : "provisioning"});
  }
  PrintResult(context, workflow::ToJson(queues), [&](std::ostream& stream) {
    PrintTable(stream, {"name", "namespace", "cluster queue", "tpu used/nominal", "pending", "admitted", "checks"},
               rows);
  });
}

void PrintQueueDescription(Context& context, const workflow::QueueDescription& description) {
  const auto& cq = description.summary.cluster_queue;
  PrintResult(context, workflow::ToJson(description), [&](std::ostream& stream) {
    stream << "queue " << description.summary.ns << "/" << description.summary.name << " → ClusterQueue " << cq.name
           << (cq.active ? " (active)" : " (inactive: " + cq.inactive_message + ")") << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : cq.quota) rows.push_back({item.flavor, item.resource, item.reserved, item.nominal});
    PrintTable(stream, {"flavor", "resource", "used", "nominal"}, rows);
    for (size_t i = 0; i < description.check_names.size(); ++i) {
      stream << "admission check " << description.check_names[i] << ": active "
             << description.check_conditions[i].status << " " << description.check_conditions[i].message << "\n";
    }
    for (const auto& workload : description.workloads) {
      workflow::WorkloadReport report{workload, cq, {}};
      stream << workload.owner_kind << "/" << workload.owner_name << ": " << workflow::WorkloadLine(report) << "\n";
    }
  });
}

void PrintWorkloadReports(Context& context, const std::vector<workflow::WorkloadReport>& reports) {
  PrintResult(context, workflow::ToJson(reports), [&](std::ostream& stream) {
    if (reports.empty()) stream << "no workloads in the queue\n";
    for (const auto& report : reports) {
      stream << report.workload.owner_kind << "/" << report.workload.owner_name << " (" << report.workload.queue
             << "): " << workflow::WorkloadLine(report) << "\n";
    }
  });
}

}  // namespace tputrain::cli
