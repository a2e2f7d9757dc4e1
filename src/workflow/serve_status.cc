// tputrain serve status: what serves in a namespace, whichever engine, found by the operators'
// kinds and labels.
#include "serve_pods.h"
#include "tputrain/k8s/readiness.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/serving/engine.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

using serve_pods::Text;

// A list's items; none when the kind is not served at all (its operator is not installed).
core::Result<nlohmann::json> ItemsOrNone(k8s::Client& client, const std::string& path, const std::string& what) {
  auto list = client.GetJson(path, what);
  if (!list) {
    if (list.error().kind == core::ErrorKind::kNotFound) return nlohmann::json::array();
    return core::Fail(list.error());
  }
  return list->value("items", nlohmann::json::array());
}

core::Status CountPods(k8s::Client& client, const std::string& ns, const std::string& selector, ServeStatusRow& row) {
  auto pods = client.GetJson(
      "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods?labelSelector=" + http::UrlEncode(selector), "pods");
  if (!pods) return core::Fail(pods.error());
  row.pods = static_cast<int>(pods->value("items", nlohmann::json::array()).size());
  row.pods_ready = serve_pods::CountReady(*pods);
  return {};
}

void SetEndpoint(k8s::Client& client, const std::string& ns, const nlohmann::json& service, ServeStatusRow& row) {
  const auto ports = service.value("spec", nlohmann::json::object()).value("ports", nlohmann::json::array());
  if (ports.empty()) return;
  row.service = Text(service.value("metadata", nlohmann::json::object()), "name");
  row.endpoint =
      k8s::ServiceProxyUrl(client.server(), ns, row.service, ports[0].value("port", nlohmann::json(0)).dump());
}

// The Service whose selector the pods' `labels` satisfy, if any.
const nlohmann::json* ServiceSelecting(const nlohmann::json& services, const nlohmann::json& labels) {
  for (const auto& service : services) {
    const auto selector = service.value("spec", nlohmann::json::object()).value("selector", nlohmann::json::object());
    if (selector.empty()) continue;
    bool matches = true;
    for (const auto& [key, value] : selector.items()) matches = matches && labels.value(key, nlohmann::json()) == value;
    if (matches) return &service;
  }
  return nullptr;
}

const nlohmann::json* ServiceNamed(const nlohmann::json& services, const std::string& name) {
  for (const auto& service : services) {
    if (Text(service.value("metadata", nlohmann::json::object()), "name") == name) return &service;
  }
  return nullptr;
}

// Whether a JobSet runs Saxml's model servers (seed 003): its pods' container is sax-model-server.
bool RunsSaxml(const nlohmann::json& jobset) {
  for (const auto& job :
       jobset.value("spec", nlohmann::json::object()).value("replicatedJobs", nlohmann::json::array())) {
    const auto containers = job.value("template", nlohmann::json::object())
                                .value("spec", nlohmann::json::object())
                                .value("template", nlohmann::json::object())
                                .value("spec", nlohmann::json::object())
                                .value("containers", nlohmann::json::array());
    for (const auto& container : containers) {
      if (Text(container, "name") == "sax-model-server") return true;
    }
  }
  return false;
}

}  // namespace

core::Result<std::vector<ServeStatusRow>> ServeStatus(k8s::Client& client, const std::string& ns) {
  const std::string ns_path = http::PathSegment(ns);
  auto services = ItemsOrNone(client, "/api/v1/namespaces/" + ns_path + "/services", "services");
  if (!services) return core::Fail(services.error());
  std::vector<ServeStatusRow> rows;

  auto sets = ItemsOrNone(client, "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns_path + "/leaderworkersets",
                          "leaderworkersets");
  if (!sets) return core::Fail(sets.error());
  for (const auto& lws : *sets) {
    const auto metadata = lws.value("metadata", nlohmann::json::object());
    ServeStatusRow row{"lws", Text(metadata, "name")};
    row.created = Text(metadata, "creationTimestamp");
    row.available = serve_pods::ConditionTrue(lws, "Available");
    if (auto counted = CountPods(client, ns, "leaderworkerset.sigs.k8s.io/name=" + row.name, row); !counted) {
      return core::Fail(counted.error());
    }
    const auto leader_labels = lws.value("spec", nlohmann::json::object())
                                   .value("leaderWorkerTemplate", nlohmann::json::object())
                                   .value("leaderTemplate", nlohmann::json::object())
                                   .value("metadata", nlohmann::json::object())
                                   .value("labels", nlohmann::json::object());
    if (const auto* service = ServiceSelecting(*services, leader_labels)) SetEndpoint(client, ns, *service, row);
    rows.push_back(std::move(row));
  }

  auto jobsets = ItemsOrNone(client, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + ns_path + "/jobsets", "jobsets");
  if (!jobsets) return core::Fail(jobsets.error());
  const std::string sax_http = serving::MakeEngine(serving::EngineKind::kSaxml)->DefaultService();
  for (const auto& jobset : *jobsets) {
    if (!RunsSaxml(jobset)) continue;  // a training JobSet serves nothing
    const auto metadata = jobset.value("metadata", nlohmann::json::object());
    ServeStatusRow row{"jobset", Text(metadata, "name")};
    row.created = Text(metadata, "creationTimestamp");
    row.available = k8s::ReadyVerdict("JobSet", &jobset).state == k8s::Verdict::State::kDone;
    if (auto counted = CountPods(client, ns, "jobset.sigs.k8s.io/jobset-name=" + row.name, row); !counted) {
      return core::Fail(counted.error());
    }
    if (const auto* service = ServiceNamed(*services, sax_http)) SetEndpoint(client, ns, *service, row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace tputrain::workflow
