#include "tputrain/gcp/container/client.h"

#include "api_call.h"

namespace tputrain::gcp::container {

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

std::string Client::Url(const std::string& resource) const { return JoinUrl(base_url_, "v1/" + resource); }

http::Request Client::BuildCreateCluster(const LocationRef& parent, const ClusterSpec& spec) const {
  nlohmann::json body = CreateClusterBody(parent, spec);
  return JsonRequest("POST", Url(parent.Parent() + "/clusters"), &body);
}

http::Request Client::BuildDeleteCluster(const ClusterRef& ref) const { return JsonRequest("DELETE", Url(ref.Name())); }

http::Request Client::BuildCreateNodePool(const ClusterRef& parent, const NodePoolSpec& spec) const {
  nlohmann::json body = CreateNodePoolBody(parent, spec);
  return JsonRequest("POST", Url(parent.Name() + "/nodePools"), &body);
}

http::Request Client::BuildDeleteNodePool(const NodePoolRef& ref) const {
  return JsonRequest("DELETE", Url(ref.Name()));
}

core::Result<Operation> Client::CreateCluster(const LocationRef& parent, const ClusterSpec& spec) {
  auto body = CallJson(transport_, BuildCreateCluster(parent, spec), "container.projects.locations.clusters.create");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Cluster> Client::GetCluster(const ClusterRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", Url(ref.Name())), "container.projects.locations.clusters.get");
  if (!body) return core::Fail(body.error());
  return ClusterFromJson(*body);
}

core::Result<std::vector<Cluster>> Client::ListClusters(const LocationRef& parent) {
  auto body = CallJson(transport_, JsonRequest("GET", Url(parent.Parent() + "/clusters")),
                       "container.projects.locations.clusters.list");
  if (!body) return core::Fail(body.error());
  std::vector<Cluster> clusters;
  for (const auto& item : body->value("clusters", nlohmann::json::array())) clusters.push_back(ClusterFromJson(item));
  return clusters;
}

core::Result<Operation> Client::DeleteCluster(const ClusterRef& ref) {
  auto body = CallJson(transport_, BuildDeleteCluster(ref), "container.projects.locations.clusters.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Operation> Client::CreateNodePool(const ClusterRef& parent, const NodePoolSpec& spec) {
  auto body =
      CallJson(transport_, BuildCreateNodePool(parent, spec), "container.projects.locations.clusters.nodePools.create");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<NodePool> Client::GetNodePool(const NodePoolRef& ref) {
  auto body =
      CallJson(transport_, JsonRequest("GET", Url(ref.Name())), "container.projects.locations.clusters.nodePools.get");
  if (!body) return core::Fail(body.error());
  return NodePoolFromJson(*body);
}

core::Result<std::vector<NodePool>> Client::ListNodePools(const ClusterRef& parent) {
  auto body = CallJson(transport_, JsonRequest("GET", Url(parent.Name() + "/nodePools")),
                       "container.projects.locations.clusters.nodePools.list");
  if (!body) return core::Fail(body.error());
  std::vector<NodePool> pools;
  for (const auto& item : body->value("nodePools", nlohmann::json::array())) pools.push_back(NodePoolFromJson(item));
  return pools;
}

core::Result<Operation> Client::DeleteNodePool(const NodePoolRef& ref) {
  auto body = CallJson(transport_, BuildDeleteNodePool(ref), "container.projects.locations.clusters.nodePools.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Operation> Client::GetOperation(const LocationRef& parent, const std::string& name) {
  auto body = CallJson(transport_, JsonRequest("GET", Url(parent.Parent() + "/operations/" + name)),
                       "container.projects.locations.operations.get");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

namespace {

// The operation's first StatusCondition code (GCE_STOCKOUT, GCE_QUOTA_EXCEEDED): why it failed,
// in GKE's own words, where the message alone would have to be read.
std::string ConditionCode(const nlohmann::json& op) {
  if (!op.is_object()) return "";
  for (const char* field : {"nodepoolConditions", "clusterConditions"}) {
    auto conditions = op.find(field);
    if (conditions == op.end() || !conditions->is_array()) continue;
    for (const auto& condition : *conditions) {
      if (!condition.is_object()) continue;
      auto code = condition.find("code");
      if (code != condition.end() && code->is_string() && *code != "UNKNOWN") return code->get<std::string>();
    }
  }
  return "";
}

}  // namespace

operations::Waiting<Operation> OperationWaiting(Client& client, const LocationRef& parent, const std::string& name) {
  return {[&client, parent, name] { return client.GetOperation(parent, name); },
          [](const Operation& op) { return op.done(); },
          [](const Operation& op) -> std::optional<core::Error> {
            const std::string where = "container operation " + op.name;
            if (op.error && op.error->code != 0) {
              const std::string& message = op.status_message.empty() ? op.error->message : op.status_message;
              auto error = operations::ErrorFromRpcStatus({op.error->code, message}, where);
              error.reason = ConditionCode(op.raw);
              return error;
            }
            // gcloud treats any statusMessage on a DONE operation as failure; so do we.
            if (!op.status_message.empty()) return operations::ErrorFromRpcStatus({2, op.status_message}, where);
            return std::nullopt;
          }};
}

}  // namespace tputrain::gcp::container
