// tputrain queue list | describe | status | wait, and --queue's labelling: Kueue's status read
// and put into words.
#include <algorithm>
#include <map>

#include "queue_cluster.h"
#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/poll.h"
#include "tputrain/k8s/names.h"

namespace tputrain::workflow {
namespace {

namespace kueue = k8s::kueue;
using nlohmann::json;

std::string KueuePath(const std::string& resource, const std::string& ns = "", const std::string& name = "") {
  std::string path = "/apis/" + std::string(kueue::kApiVersion);
  if (!ns.empty()) path += "/namespaces/" + http::PathSegment(ns);
  path += "/" + resource;
  if (!name.empty()) path += "/" + http::PathSegment(name);
  return path;
}

core::Status RequireKueue(k8s::Discovery& discovery) {
  auto served = discovery.Lookup(std::string(kueue::kApiVersion), "LocalQueue");
  if (served) return {};
  if (served.error().kind != core::ErrorKind::kFailedPrecondition) return core::Fail(served.error());
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                      "Kueue (kueue.x-k8s.io/v1beta2) is not installed on this cluster: `tputrain "
                                      "queue create NAME` installs it and makes a queue"));
}

// A list across namespaces when this user may read one, else in `ns`; `cluster_wide` says which.
core::Result<json> ListItems(k8s::Client& client, const std::string& resource, const std::string& ns,
                             bool& cluster_wide) {
  if (cluster_wide) {
    auto all = client.Send("GET", KueuePath(resource));
    if (!all) return core::Fail(all.error());
    if (all->ok()) return core::ParseJson(all->body, resource);
    if (all->status != 403) return core::Fail(k8s::ErrorFromStatus(all->status, all->body, resource));
    cluster_wide = false;
  }
  return client.GetJson(KueuePath(resource, ns), resource);
}

std::optional<kueue::ClusterQueueStatus> ReadClusterQueue(k8s::Client& client, const std::string& name,
                                                          std::map<std::string, kueue::ClusterQueueStatus>& cache) {
  if (name.empty()) return std::nullopt;
  if (auto found = cache.find(name); found != cache.end()) return found->second;
  auto cq = client.GetJson(KueuePath("clusterqueues", "", name), "ClusterQueue " + name);
  if (!cq) return std::nullopt;  // gone, or not readable by this user: the workload's line says less
  return cache[name] = kueue::ParseClusterQueue(*cq);
}

// "RayJob/train" or "rayjob/train" (or "lws/serve") or the Workload's own name.
bool Matches(const kueue::WorkloadStatus& workload, const std::string& wanted) {
  if (wanted.empty() || workload.name == wanted) return true;
  auto slash = wanted.find('/');
  if (slash == std::string::npos) return workload.owner_name == wanted;
  std::string kind = wanted.substr(0, slash);
  std::string lower_owner = workload.owner_kind;
  std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
  if (kind == "lws") kind = "leaderworkerset";  // as `logs` names it
  std::transform(lower_owner.begin(), lower_owner.end(), lower_owner.begin(), ::tolower);
  return workload.owner_name == wanted.substr(slash + 1) && lower_owner == kind;
}

}  // namespace

core::Result<std::vector<QueueSummary>> ListQueues(k8s::Client& client, k8s::Discovery& discovery,
                                                   const std::string& ns, bool all_namespaces) {
  if (auto served = RequireKueue(discovery); !served) return core::Fail(served.error());
  const std::string in_ns = ns.empty() ? client.default_namespace() : ns;
  auto list =
      client.GetJson(all_namespaces ? KueuePath("localqueues") : KueuePath("localqueues", in_ns), "LocalQueues");
  if (!list) return core::Fail(list.error());
  std::map<std::string, kueue::ClusterQueueStatus> cache;
  std::vector<QueueSummary> queues;
  for (const auto& item : core::ArrayAt(*list, "items")) {
    QueueSummary summary;
    summary.name = core::StringAt(core::ObjectAt(item, "metadata"), "name");
    summary.ns = core::StringAt(core::ObjectAt(item, "metadata"), "namespace");
    const auto& status = core::ObjectAt(item, "status");
    summary.pending = core::IntAt(status, "pendingWorkloads", 0);
    summary.admitted = core::IntAt(status, "admittedWorkloads", 0);
    std::string cq = core::StringAt(core::ObjectAt(item, "spec"), "clusterQueue");
    summary.cluster_queue.name = cq;
    if (auto read = ReadClusterQueue(client, cq, cache)) summary.cluster_queue = *read;
    queues.push_back(std::move(summary));
  }
  return queues;
}

core::Result<QueueDescription> DescribeQueue(k8s::Client& client, k8s::Discovery& discovery, const std::string& name,
                                             const std::string& ns) {
  if (auto valid = kueue::ValidateQueueName("queue", name); !valid) return core::Fail(valid.error());
  if (auto served = RequireKueue(discovery); !served) return core::Fail(served.error());
  const std::string in_ns = ns.empty() ? client.default_namespace() : ns;
  auto local = client.GetJson(KueuePath("localqueues", in_ns, name), "LocalQueue " + in_ns + "/" + name);
  if (!local) return core::Fail(local.error());
  QueueDescription description;
  description.summary.name = name;
  description.summary.ns = in_ns;
  description.summary.pending = core::IntAt(core::ObjectAt(*local, "status"), "pendingWorkloads", 0);
  description.summary.admitted = core::IntAt(core::ObjectAt(*local, "status"), "admittedWorkloads", 0);
  std::string cq = core::StringAt(core::ObjectAt(*local, "spec"), "clusterQueue");
  auto cluster_queue = client.GetJson(KueuePath("clusterqueues", "", cq), "ClusterQueue " + cq);
  if (!cluster_queue) return core::Fail(cluster_queue.error());
  description.summary.cluster_queue = kueue::ParseClusterQueue(*cluster_queue);
  std::vector<std::string> flavors;
  for (const auto& quota : description.summary.cluster_queue.quota) {
    if (std::find(flavors.begin(), flavors.end(), quota.flavor) == flavors.end()) flavors.push_back(quota.flavor);
  }
  for (const auto& flavor : flavors) {
    auto read = client.GetJson(KueuePath("resourceflavors", "", flavor), "ResourceFlavor " + flavor);
    nlohmann::json spec = read ? core::ObjectAt(*read, "spec") : json{{"missing", true}};
    description.flavors.push_back({{"name", flavor}, {"spec", spec}});
  }
  for (const auto& check : description.summary.cluster_queue.checks) {
    description.check_names.push_back(check);
    kueue::Condition active{"Active", "Unknown", "", "not found", ""};
    if (auto read = client.GetJson(KueuePath("admissionchecks", "", check), "AdmissionCheck " + check)) {
      for (const auto& condition : kueue::ConditionsOf(*read)) {
        if (condition.type == "Active") active = condition;
      }
    }
    description.check_conditions.push_back(active);
  }
  auto reports = QueueStatus(client, discovery, in_ns, name, "");
  if (!reports) return core::Fail(reports.error());
  for (auto& report : *reports) description.workloads.push_back(std::move(report.workload));
  return description;
}

core::Result<std::vector<WorkloadReport>> QueueStatus(k8s::Client& client, k8s::Discovery& discovery,
                                                      const std::string& ns, const std::string& queue,
                                                      const std::string& workload) {
  if (!queue.empty()) {
    if (auto valid = kueue::ValidateQueueName("--queue", queue); !valid) return core::Fail(valid.error());
  }
  if (auto served = RequireKueue(discovery); !served) return core::Fail(served.error());
  const std::string in_ns = ns.empty() ? client.default_namespace() : ns;
  // Positions count every pending workload of a ClusterQueue, whichever namespace it is in.
  bool cluster_wide = true;
  auto local_queues = ListItems(client, "localqueues", in_ns, cluster_wide);
  if (!local_queues) return core::Fail(local_queues.error());
  auto workloads = ListItems(client, "workloads", in_ns, cluster_wide);
  if (!workloads) return core::Fail(workloads.error());
  std::map<std::string, std::string> cluster_queue_of;  // "ns/localqueue" → ClusterQueue
  for (const auto& item : core::ArrayAt(*local_queues, "items")) {
    const auto& metadata = core::ObjectAt(item, "metadata");
    cluster_queue_of[core::StringAt(metadata, "namespace") + "/" + core::StringAt(metadata, "name")] =
        core::StringAt(core::ObjectAt(item, "spec"), "clusterQueue");
  }
  std::vector<kueue::WorkloadStatus> all;
  for (const auto& item : core::ArrayAt(*workloads, "items")) {
    auto status = kueue::ParseWorkload(item);
    if (status.cluster_queue.empty()) status.cluster_queue = cluster_queue_of[status.ns + "/" + status.queue];
    all.push_back(std::move(status));
  }
  kueue::AssignPositions(all);

  std::map<std::string, kueue::ClusterQueueStatus> cache;
  std::vector<WorkloadReport> reports;
  json requests;  // the namespace's ProvisioningRequests, read once when a workload has a check
  for (auto& status : all) {
    if (status.ns != in_ns || (!queue.empty() && status.queue != queue) || !Matches(status, workload)) continue;
    WorkloadReport report;
    report.cluster_queue = ReadClusterQueue(client, status.cluster_queue, cache);
    if (!status.checks.empty() && requests.is_null()) {
      auto read = client.GetJson(
          "/apis/autoscaling.x-k8s.io/v1/namespaces/" + http::PathSegment(in_ns) + "/provisioningrequests",
          "ProvisioningRequests");
      requests = read ? *read : json::object();
    }
    for (const auto& request : core::ArrayAt(requests, "items")) {
      for (const auto& owner : core::ArrayAt(core::ObjectAt(request, "metadata"), "ownerReferences")) {
        if (core::StringAt(owner, "kind") == "Workload" && core::StringAt(owner, "name") == status.name) {
          report.provisioning.push_back(
              {core::StringAt(core::ObjectAt(request, "metadata"), "name"), kueue::ConditionsOf(request)});
        }
      }
    }
    report.workload = std::move(status);
    reports.push_back(std::move(report));
  }
  if (!workload.empty() && reports.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kNotFound,
                                        "no Kueue workload for " + workload + " in namespace " + in_ns +
                                            " (is it labelled kueue.x-k8s.io/queue-name? `tputrain queue status` "
                                            "lists them)"));
  }
  return reports;
}

std::string WorkloadLine(const WorkloadReport& report) {
  const auto& workload = report.workload;
  std::string line(kueue::WorkloadPhaseName(workload.phase));
  if (workload.phase == kueue::WorkloadPhase::kPending && workload.position > 0) {
    line += ": position " + std::to_string(workload.position) + " in cluster queue " + workload.cluster_queue;
  }
  if (!workload.flavors.empty()) {
    line += " (flavor";
    for (const auto& flavor : workload.flavors) line += " " + flavor;
    line += ")";
  }
  if (workload.phase == kueue::WorkloadPhase::kPending && report.cluster_queue) {
    std::string quota;
    for (const auto& item : report.cluster_queue->quota) {
      if (item.resource != kueue::kTpuResource) continue;
      quota += (quota.empty() ? "" : ", ") + item.reserved + "/" + item.nominal + " in " + item.flavor;
    }
    if (!quota.empty()) line += "; google.com/tpu used/nominal: " + quota;
  }
  if (workload.phase != kueue::WorkloadPhase::kAdmitted && !workload.message.empty()) {
    line += "; Kueue: " + workload.message;
  }
  for (const auto& check : workload.checks) {
    line += "; check " + check.name + ": " + check.state + (check.message.empty() ? "" : " (" + check.message + ")");
  }
  for (const auto& request : report.provisioning) {
    std::string conditions;
    for (const auto& condition : request.conditions) {
      conditions += (conditions.empty() ? "" : ", ") + condition.type + "=" + condition.status;
    }
    line += "; ProvisioningRequest " + request.name + ": " + (conditions.empty() ? "no conditions yet" : conditions);
  }
  return line;
}

core::Result<WorkloadReport> WaitQueued(const core::Runtime& runtime, k8s::Client& client, k8s::Discovery& discovery,
                                        const std::string& ns, const std::string& workload, QueueWaitFor until,
                                        std::chrono::milliseconds timeout) {
  WorkloadReport last;
  std::string said;
  core::PollOptions poll{std::chrono::milliseconds(500), 1.5, std::chrono::milliseconds(5000), timeout};
  poll.on_timeout = core::OnTimeout::kDeadlineExceeded;
  auto done = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto reports = QueueStatus(client, discovery, ns, "", workload);
        // A workload Kueue has not made yet (just applied) is waited for, not an error.
        if (!reports && reports.error().kind == core::ErrorKind::kNotFound) return false;
        if (!reports) return core::Fail(reports.error());
        // A LeaderWorkerSet of several groups has a Workload per group: all of them, the one
        // furthest behind said.
        auto reached = [until](const WorkloadReport& report) {
          auto phase = report.workload.phase;
          return phase == kueue::WorkloadPhase::kFinished ||
                 (until == QueueWaitFor::kAdmitted && phase == kueue::WorkloadPhase::kAdmitted);
        };
        auto behind = std::find_if(reports->begin(), reports->end(), [&](const auto& r) { return !reached(r); });
        last = behind == reports->end() ? reports->front() : *behind;
        std::string line = WorkloadLine(last);
        if (line != said) runtime.reporter.Progress("queue", workload + ": " + line);
        said = line;
        return behind == reports->end();
      },
      poll, runtime);
  if (!done && done.error().kind == core::ErrorKind::kDeadlineExceeded) {
    auto error = done.error();
    error.message = workload + " was not " + (until == QueueWaitFor::kAdmitted ? "admitted" : "finished") +
                    " in time: " + (said.empty() ? "Kueue has no workload for it yet" : said);
    return core::Fail(error);
  }
  if (!done) return core::Fail(done.error());
  return last;
}

core::Result<kueue::QueueLabelling> QueueLabellingFor(k8s::Client& client, const std::string& queue,
                                                      const std::string& ns) {
  if (auto valid = kueue::ValidateQueueName("--queue", queue); !valid) return core::Fail(valid.error());
  const std::string in_ns = ns.empty() ? client.default_namespace() : ns;
  auto local = client.Send("GET", KueuePath("localqueues", in_ns, queue));
  if (!local) return core::Fail(local.error());
  if (local->status == 404) {
    return core::Fail(core::Error::Usage("--queue: no LocalQueue " + queue + " in namespace " + in_ns +
                                         " (Kueue not installed, or no such queue: `tputrain queue create " + queue +
                                         " -n " + in_ns + "` makes one)"));
  }
  if (!local->ok()) return core::Fail(k8s::ErrorFromStatus(local->status, local->body, "LocalQueue " + queue));
  auto parsed = core::ParseJson(local->body, "LocalQueue " + queue);
  if (!parsed) return core::Fail(parsed.error());
  kueue::QueueLabelling labelling;
  labelling.queue = queue;
  std::string cq = core::StringAt(core::ObjectAt(*parsed, "spec"), "clusterQueue");
  auto cluster_queue = client.GetJson(KueuePath("clusterqueues", "", cq), "ClusterQueue " + cq);
  if (!cluster_queue) return core::Fail(cluster_queue.error());
  for (const auto& check : kueue::ParseClusterQueue(*cluster_queue).checks) {
    auto read = client.GetJson(KueuePath("admissionchecks", "", check), "AdmissionCheck " + check);
    if (!read) return core::Fail(read.error());
    if (core::StringAt(core::ObjectAt(*read, "spec"), "controllerName") == kueue::kProvisioningController) {
      labelling.provisioning = true;
    }
  }
  return labelling;
}

core::Status PrepareForQueue(k8s::Client& client, const std::string& queue, const std::string& ns,
                             std::vector<k8s::Object>& objects) {
  if (queue.empty()) return {};
  auto labelling = QueueLabellingFor(client, queue, ns);
  if (!labelling) return core::Fail(labelling.error());
  auto labelled = kueue::LabelForQueue(objects, *labelling);
  if (!labelled) return core::Fail(labelled.error());
  return {};
}

}  // namespace tputrain::workflow
