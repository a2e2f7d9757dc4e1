#include "tputrain/gcp/compute/resource_policies.h"

#include "api_call.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::gcp::compute {
using nlohmann::json;

json WorkloadPolicyToJson(const ResourcePolicyRef& ref, const WorkloadPolicy& policy) {
  json workload = {{"type", policy.type}};
  if (!policy.accelerator_topology.empty()) workload["acceleratorTopology"] = policy.accelerator_topology;
  json body = {{"name", ref.name}, {"region", ref.region}, {"workloadPolicy", workload}};
  if (!policy.description.empty()) body["description"] = policy.description;
  return body;
}

WorkloadPolicy WorkloadPolicyFromJson(const json& body) {
  WorkloadPolicy policy;
  if (!body.is_object()) return policy;
  policy.description = core::StringAt(body, "description");
  policy.status = core::StringAt(body, "status");
  auto workload = body.find("workloadPolicy");
  if (workload == body.end() || !workload->is_object()) return policy;
  policy.is_workload_policy = true;
  policy.type = core::StringAt(*workload, "type");
  policy.accelerator_topology = core::StringAt(*workload, "acceleratorTopology");
  return policy;
}

ResourcePolicyClient::ResourcePolicyClient(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request ResourcePolicyClient::BuildInsert(const ResourcePolicyRef& ref, const WorkloadPolicy& policy) const {
  const auto body = WorkloadPolicyToJson(ref, policy);
  return JsonRequest("POST", JoinUrl(base_url_, ref.Region() + "resourcePolicies"), &body);
}

http::Request ResourcePolicyClient::BuildDelete(const ResourcePolicyRef& ref) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, ref.Path()));
}

core::Result<Operation> ResourcePolicyClient::Insert(const ResourcePolicyRef& ref, const WorkloadPolicy& policy) {
  auto body = CallJson(transport_, BuildInsert(ref, policy), "compute.resourcePolicies.insert");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<WorkloadPolicy> ResourcePolicyClient::Get(const ResourcePolicyRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, ref.Path())), "compute.resourcePolicies.get");
  if (!body) return core::Fail(body.error());
  return WorkloadPolicyFromJson(*body);
}

core::Result<std::vector<std::string>> ResourcePolicyClient::List(const std::string& project,
                                                                  const std::string& region) {
  std::vector<std::string> names;
  std::string page_token;
  const ResourcePolicyRef where{project, region, ""};
  do {
    std::string url = JoinUrl(base_url_, where.Region() + "resourcePolicies");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "compute.resourcePolicies.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("items", json::array())) {
      if (item.is_object() && !core::StringAt(item, "name").empty()) names.push_back(core::StringAt(item, "name"));
    }
    page_token = core::StringAt(*body, "nextPageToken");
  } while (!page_token.empty());
  return names;
}

core::Result<Operation> ResourcePolicyClient::Delete(const ResourcePolicyRef& ref) {
  auto body = CallJson(transport_, BuildDelete(ref), "compute.resourcePolicies.delete");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

core::Result<Operation> ResourcePolicyClient::GetRegionOperation(const std::string& project, const std::string& region,
                                                                 const std::string& name) {
  const ResourcePolicyRef where{project, region, ""};
  auto body = CallJson(transport_,
                       JsonRequest("GET", JoinUrl(base_url_, where.Region() + "operations/" + http::PathSegment(name))),
                       "compute.regionOperations.get");
  if (!body) return core::Fail(body.error());
  return OperationFromJson(*body);
}

operations::Waiting<Operation> RegionOperationWaiting(ResourcePolicyClient& client, const std::string& project,
                                                      const std::string& region, const std::string& name) {
  return {[&client, project, region, name] { return client.GetRegionOperation(project, region, name); },
          [](const Operation& op) { return op.done(); }, [](const Operation& op) { return op.error; }};
}

}  // namespace tputrain::gcp::compute
