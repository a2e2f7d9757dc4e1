#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/compute/client.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/http/transport.h"

// Compute Engine regional resource policies (compute/v1 resourcePolicies.insert/get/list/delete)
// of the one kind tputrain makes: a workload policy, through which GKE places a multi-host tpu7x
// slice (the node pool names it in placementPolicy.policyName), and the regional operations they
// start.
namespace tputrain::gcp::compute {

struct ResourcePolicyRef {
  std::string project;
  std::string region;
  std::string name;
  // Each part one URL path segment, percent-encoded.
  std::string Region() const {
    return "projects/" + http::PathSegment(project) + "/regions/" + http::PathSegment(region) + "/";
  }
  std::string Path() const { return Region() + "resourcePolicies/" + http::PathSegment(name); }
  // The ledger's key: the resource's name without encoding.
  std::string Key() const { return "projects/" + project + "/regions/" + region + "/resourcePolicies/" + name; }
};

// ResourcePolicy.workloadPolicy, and what else tputrain reads of the policy.
struct WorkloadPolicy {
  std::string type;                  // "HIGH_THROUGHPUT"
  std::string accelerator_topology;  // "4x4x4"
  std::string description;           // tputrain writes its run there: resource policies have no labels
  std::string status;                // output: CREATING, READY, DELETING, INVALID, EXPIRED
  bool is_workload_policy = false;   // false: a resource policy of another kind (a schedule, a placement)
};

inline constexpr char kHighThroughput[] = "HIGH_THROUGHPUT";

// The body `gcloud compute resource-policies create workload-policy NAME --region R --type T
// --accelerator-topology X [--description D]` sends: {"name", "region", "workloadPolicy":
// {"acceleratorTopology", "type"}} (and "description").
nlohmann::json WorkloadPolicyToJson(const ResourcePolicyRef& ref, const WorkloadPolicy& policy);
WorkloadPolicy WorkloadPolicyFromJson(const nlohmann::json& body);

class ResourcePolicyClient {
 public:
  // `base_url` is Endpoints::compute: ".../compute/v1/".
  ResourcePolicyClient(http::Transport& transport, std::string base_url);

  // The requests as sent (and as --dry-run prints them).
  http::Request BuildInsert(const ResourcePolicyRef& ref, const WorkloadPolicy& policy) const;
  http::Request BuildDelete(const ResourcePolicyRef& ref) const;

  core::Result<Operation> Insert(const ResourcePolicyRef& ref, const WorkloadPolicy& policy);
  core::Result<WorkloadPolicy> Get(const ResourcePolicyRef& ref);
  // The names of the region's resource policies, every page.
  core::Result<std::vector<std::string>> List(const std::string& project, const std::string& region);
  core::Result<Operation> Delete(const ResourcePolicyRef& ref);
  core::Result<Operation> GetRegionOperation(const std::string& project, const std::string& region,
                                             const std::string& name);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for a regional operation (operations::Wait); `client` must outlive the wait.
operations::Waiting<Operation> RegionOperationWaiting(ResourcePolicyClient& client, const std::string& project,
                                                      const std::string& region, const std::string& name);

}  // namespace tputrain::gcp::compute
