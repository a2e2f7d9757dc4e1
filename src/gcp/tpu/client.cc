#include "tputrain/gcp/tpu/client.h"

#include "api_call.h"

namespace tputrain::gcp::tpu {

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildCreateNode(const NodeRef& ref, const NodeSpec& spec) const {
  // The body is the bare Node; its id travels in the query, as in tpu.projects.locations.nodes.create.
  nlohmann::json body = NodeToJson(spec);
  return JsonRequest("POST", JoinUrl(base_url_, "v2/" + ref.Parent() + "/nodes?nodeId=" + http::UrlEncode(ref.node)),
                     &body);
}

http::Request Client::BuildDeleteNode(const NodeRef& ref) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, "v2/" + ref.Name()));
}

core::Result<Operation> Client::CreateNode(const NodeRef& ref, const NodeSpec& spec) {
  auto body = CallJson(transport_, BuildCreateNode(ref, spec), "tpu.projects.locations.nodes.create");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Node> Client::GetNode(const NodeRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v2/" + ref.Name())),
                       "tpu.projects.locations.nodes.get");
  if (!body) return core::Fail(body.error());
  return NodeFromJson(*body);
}

core::Result<std::vector<Node>> Client::ListNodes(const std::string& project, const std::string& zone) {
  std::vector<Node> nodes;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "v2/" + NodeRef{project, zone, ""}.Parent() + "/nodes");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "tpu.projects.locations.nodes.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("nodes", nlohmann::json::array())) nodes.push_back(NodeFromJson(item));
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return nodes;
}

core::Result<std::vector<std::string>> Client::ListAcceleratorTypes(const std::string& project,
                                                                    const std::string& zone) {
  std::vector<std::string> types;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "v2/" + NodeRef{project, zone, ""}.Parent() + "/acceleratorTypes");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "tpu.projects.locations.acceleratorTypes.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("acceleratorTypes", nlohmann::json::array())) {
      if (item.is_object() && item.contains("type") && item["type"].is_string()) types.push_back(item["type"]);
    }
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return types;
}

core::Result<Operation> Client::DeleteNode(const NodeRef& ref) {
  auto body = CallJson(transport_, BuildDeleteNode(ref), "tpu.projects.locations.nodes.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<std::vector<GuestAttribute>> Client::GetGuestAttributes(const NodeRef& ref,
                                                                     const std::string& query_path) {
  // No workerIds: every worker answers.
  nlohmann::json body = nlohmann::json::object();
  if (!query_path.empty()) body["queryPath"] = query_path;
  http::Request request = JsonRequest("POST", JoinUrl(base_url_, "v2/" + ref.Name() + ":getGuestAttributes"), &body);
  request.idempotent = true;  // a read, though a POST: safe to repeat, and sent by a dry run
  request.reads_only = true;
  auto answer = CallJson(transport_, request, "tpu.projects.locations.nodes.getGuestAttributes");
  if (!answer) return core::Fail(answer.error());
  return GuestAttributesFromJson(*answer);
}

core::Result<Operation> Client::PatchNodeMetadata(const NodeRef& ref,
                                                  const std::map<std::string, std::string>& metadata) {
  nlohmann::json body = {{"metadata", metadata}};
  if (metadata.empty()) body["metadata"] = nlohmann::json::object();
  http::Request request = JsonRequest("PATCH", JoinUrl(base_url_, "v2/" + ref.Name() + "?updateMask=metadata"), &body);
  request.idempotent = true;  // the same whole map again changes nothing
  auto answer = CallJson(transport_, request, "tpu.projects.locations.nodes.patch");
  if (!answer) return core::Fail(answer.error());
  return OperationFromJson(*answer);
}

http::Request Client::BuildCreateMultislice(const QueuedResourceRef& ref, const NodeSpec& spec, int slices,
                                            const Queueing& queueing) const {
  nlohmann::json body = MultisliceToJson(ref, spec, slices, queueing);
  return JsonRequest(
      "POST", JoinUrl(base_url_, "v2/" + ref.Parent() + "/queuedResources?queuedResourceId=" + http::UrlEncode(ref.id)),
      &body);
}

http::Request Client::BuildDeleteQueuedResource(const QueuedResourceRef& ref, bool force) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, "v2/" + ref.Name() + (force ? "?force=true" : "")));
}

core::Result<Operation> Client::CreateMultislice(const QueuedResourceRef& ref, const NodeSpec& spec, int slices,
                                                 const Queueing& queueing) {
  auto body = CallJson(transport_, BuildCreateMultislice(ref, spec, slices, queueing),
                       "tpu.projects.locations.queuedResources.create");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<QueuedResource> Client::GetQueuedResource(const QueuedResourceRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v2/" + ref.Name())),
                       "tpu.projects.locations.queuedResources.get");
  if (!body) return core::Fail(body.error());
  return QueuedResourceFromJson(*body);
}

core::Result<std::vector<QueuedResource>> Client::ListQueuedResources(const std::string& project,
                                                                      const std::string& zone) {
  std::vector<QueuedResource> resources;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "v2/" + QueuedResourceRef{project, zone, ""}.Parent() + "/queuedResources");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "tpu.projects.locations.queuedResources.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("queuedResources", nlohmann::json::array())) {
      resources.push_back(QueuedResourceFromJson(item));
    }
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return resources;
}

core::Result<Operation> Client::DeleteQueuedResource(const QueuedResourceRef& ref, bool force) {
  auto body =
      CallJson(transport_, BuildDeleteQueuedResource(ref, force), "tpu.projects.locations.queuedResources.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Operation> Client::GetOperation(const std::string& name) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v2/" + name)),
                       "tpu.projects.locations.operations.get");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name) {
  return operations::LongRunning([&client, name] { return client.GetOperation(name); }, "tpu operation " + name);
}

operations::Waiting<QueuedResource> QueuedResourceWaiting(Client& client, const QueuedResourceRef& ref) {
  return {[&client, ref] { return client.GetQueuedResource(ref); },
          [](const QueuedResource& resource) {
            return resource.state == QueuedResourceState::kActive || QueuedResourceFailure(resource).has_value();
          },
          QueuedResourceFailure};
}

std::optional<core::Error> QueuedResourceFailure(const QueuedResource& resource) {
  switch (resource.state) {
    case QueuedResourceState::kFailed:
      return core::Error::Make(core::ErrorKind::kFailedPrecondition,
                               "FAILED" + (resource.failure.empty() ? std::string() : ": " + resource.failure));
    case QueuedResourceState::kSuspending:
    case QueuedResourceState::kSuspended:
    case QueuedResourceState::kDeleting:
      return core::Error::Make(core::ErrorKind::kFailedPrecondition,
                               "state " + std::string(QueuedResourceStateName(resource.state)));
    default:
      return std::nullopt;
  }
}

}  // namespace tputrain::gcp::tpu
