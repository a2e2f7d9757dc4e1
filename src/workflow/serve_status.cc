// tputrain serve status: what serves in a namespace, whichever engine, found by the operators'
// kinds and labels.
#include "serve_pods.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/readiness.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/serving/engine.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_up.h"

namespace tputrain::workflow {
namespace {

// A list's items; none when the kind is not served at all (its operator is not installed).
core::Result<nlohmann::json> ItemsOrNone(k8s::Client& client, const std::string& path, const std::string& what) {
  auto list = client.GetJson(path, what);
  if (!list) {
    if (list.error().kind == core::ErrorKind::kNotFound) return nlohmann::json::array();
    return core::Fail(list.error());
  }
  return core::ArrayAt(*list, "items");
}

core::Status CountPods(k8s::Client& client, const std::string& ns, const std::string& selector, ServeStatusRow& row) {
  auto pods = serve_pods::Pods(client, ns, selector);
  if (!pods) return core::Fail(pods.error());
  row.pods = static_cast<int>(core::ArrayAt(*pods, "items").size());
  row.pods_ready = serve_pods::CountReady(*pods);
  return {};
}

void SetEndpoint(k8s::Client& client, const std::string& ns, const nlohmann::json& service, ServeStatusRow& row) {
  const auto ports = core::ArrayAt(core::ObjectAt(service, "spec"), "ports");
  if (ports.empty()) return;
  row.service = core::StringAt(core::ObjectAt(service, "metadata"), "name");
  row.endpoint =
      k8s::ServiceProxyUrl(client.server(), ns, row.service, ports[0].value("port", nlohmann::json(0)).dump());
}

// The Service with a port whose selector the pods' `labels` satisfy, if any. One without ports
// is skipped: the LeaderWorkerSet controller's own headless Service selects every pod of the set
// by its name, for DNS only, and is not the one that serves.
const nlohmann::json* ServiceSelecting(const nlohmann::json& services, const nlohmann::json& labels) {
  for (const auto& service : services) {
    const auto selector = core::ObjectAt(core::ObjectAt(service, "spec"), "selector");
    if (selector.empty() || core::ArrayAt(core::ObjectAt(service, "spec"), "ports").empty()) continue;
    bool matches = true;
    for (const auto& [key, value] : selector.items()) matches = matches && labels.value(key, nlohmann::json()) == value;
    if (matches) return &service;
  }
  return nullptr;
}

const nlohmann::json* ServiceNamed(const nlohmann::json& services, const std::string& name) {
  for (const auto& service : services) {
    if (core::StringAt(core::ObjectAt(service, "metadata"), "name") == name) return &service;
  }
  return nullptr;
}

// Whether a JobSet runs Saxml's model servers (seed 003): its pods' container is sax-model-server.
bool RunsSaxml(const nlohmann::json& jobset) {
  for (const auto& job : core::ArrayAt(core::ObjectAt(jobset, "spec"), "replicatedJobs")) {
    const auto containers = core::ArrayAt(
        core::ObjectAt(core::ObjectAt(core::ObjectAt(core::ObjectAt(job, "template"), "spec"), "template"), "spec"),
        "containers");
    for (const auto& container : containers) {
      if (core::StringAt(container, "name") == "sax-model-server") return true;
    }
  }
  return false;
}

// Whether a pod template runs vLLM's server: a container named vllm (GKE's tutorial) or
// vllm-leader (serve up's multi-host leader), or one whose command is `vllm` (`vllm serve`).
bool RunsVllm(const nlohmann::json& pod_template) {
  for (const auto& container : core::ArrayAt(core::ObjectAt(pod_template, "spec"), "containers")) {
    const auto command = core::ArrayAt(container, "command");
    const std::string name = core::StringAt(container, "name");
    if (name == "vllm" || name == "vllm-leader" || (!command.empty() && command[0] == "vllm")) return true;
  }
  return false;
}

// A vLLM row's server, asked through the Service in front of it.
void AskServer(k8s::Client& client, ServeStatusRow& row) {
  row.engine = serving::EngineKind::kVllm;
  if (!row.endpoint.empty()) row.server = AskVllmServer(client.transport(), row.endpoint);
}

core::Result<std::vector<ServeStatusRow>> StatusRows(k8s::Client& client, const std::string& ns) {
  const std::string ns_path = http::PathSegment(ns);
  auto services = ItemsOrNone(client, "/api/v1/namespaces/" + ns_path + "/services", "services");
  if (!services) return core::Fail(services.error());
  std::vector<ServeStatusRow> rows;

  auto sets = ItemsOrNone(client, "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns_path + "/leaderworkersets",
                          "leaderworkersets");
  if (!sets) return core::Fail(sets.error());
  for (const auto& lws : *sets) {
    const auto metadata = core::ObjectAt(lws, "metadata");
    ServeStatusRow row{"lws", core::StringAt(metadata, "name")};
    row.created = core::StringAt(metadata, "creationTimestamp");
    row.available = serve_pods::ConditionTrue(lws, "Available");
    if (auto counted = CountPods(client, ns, "leaderworkerset.sigs.k8s.io/name=" + row.name, row); !counted) {
      return core::Fail(counted.error());
    }
    const auto leader =
        core::ObjectAt(core::ObjectAt(core::ObjectAt(lws, "spec"), "leaderWorkerTemplate"), "leaderTemplate");
    auto leader_labels = core::ObjectAt(core::ObjectAt(leader, "metadata"), "labels");
    // The LWS controller labels its pods with the set's name too (vLLM's Service selects by it).
    leader_labels["leaderworkerset.sigs.k8s.io/name"] = row.name;
    if (const auto* service = ServiceSelecting(*services, leader_labels)) SetEndpoint(client, ns, *service, row);
    if (RunsVllm(leader)) AskServer(client, row);
    rows.push_back(std::move(row));
  }

  auto jobsets = ItemsOrNone(client, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + ns_path + "/jobsets", "jobsets");
  if (!jobsets) return core::Fail(jobsets.error());
  const std::string sax_http = serving::MakeEngine(serving::EngineKind::kSaxml)->DefaultService();
  for (const auto& jobset : *jobsets) {
    if (!RunsSaxml(jobset)) continue;  // a training JobSet serves nothing
    const auto metadata = core::ObjectAt(jobset, "metadata");
    ServeStatusRow row{"jobset", core::StringAt(metadata, "name")};
    row.engine = serving::EngineKind::kSaxml;
    row.created = core::StringAt(metadata, "creationTimestamp");
    row.available = k8s::ReadyVerdict("JobSet", &jobset).state == k8s::Verdict::State::kDone;
    if (auto counted = CountPods(client, ns, "jobset.sigs.k8s.io/jobset-name=" + row.name, row); !counted) {
      return core::Fail(counted.error());
    }
    if (const auto* service = ServiceNamed(*services, sax_http)) SetEndpoint(client, ns, *service, row);
    rows.push_back(std::move(row));
  }

  auto deployments = ItemsOrNone(client, "/apis/apps/v1/namespaces/" + ns_path + "/deployments", "deployments");
  if (!deployments) return core::Fail(deployments.error());
  for (const auto& deployment : *deployments) {
    const auto pod_template = core::ObjectAt(core::ObjectAt(deployment, "spec"), "template");
    if (!RunsVllm(pod_template)) continue;  // Saxml's admin server and sax-http are the JobSet's row
    const auto metadata = core::ObjectAt(deployment, "metadata");
    ServeStatusRow row{"deployment", core::StringAt(metadata, "name")};
    row.created = core::StringAt(metadata, "creationTimestamp");
    row.available = k8s::ReadyVerdict("Deployment", &deployment).state == k8s::Verdict::State::kDone;
    const std::string selector = k8s::PodSelectorFor("Deployment", deployment);
    if (!selector.empty()) {
      if (auto counted = CountPods(client, ns, selector, row); !counted) return core::Fail(counted.error());
    }
    const auto pod_labels = core::ObjectAt(core::ObjectAt(pod_template, "metadata"), "labels");
    if (const auto* service = ServiceSelecting(*services, pod_labels)) SetEndpoint(client, ns, *service, row);
    AskServer(client, row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

core::Result<ServeStatusOutcome> ServeStatus(Root& root, const ServeStatusRequest& request) {
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  k8s::Client& client = *(*connection)->client;
  ServeStatusOutcome outcome;
  outcome.ns = request.access.ns.empty() ? client.default_namespace() : request.access.ns;
  auto rows = StatusRows(client, outcome.ns);
  if (!rows) return core::Fail(rows.error());
  outcome.rows = std::move(*rows);
  return outcome;
}

}  // namespace tputrain::workflow
