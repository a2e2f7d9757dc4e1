#include "tputrain/state/resource_kind.h"

namespace tputrain::state {
namespace {

struct KindSpelling {
  ResourceKind kind;
  std::string_view name;
};

constexpr KindSpelling kSpellings[] = {
    {ResourceKind::kCluster, "cluster"},
    {ResourceKind::kNodePool, "nodepool"},
    {ResourceKind::kTpuVm, "tpu-vm"},
    {ResourceKind::kQueuedResource, "queued-resource"},
    {ResourceKind::kBucket, "bucket"},
    {ResourceKind::kServiceAccount, "service-account"},
    {ResourceKind::kIamMember, "iam-member"},
    {ResourceKind::kK8sObject, "k8s-object"},
    {ResourceKind::kRayJob, "ray-job"},
    {ResourceKind::kRepository, "repository"},
    {ResourceKind::kBuild, "build"},
    {ResourceKind::kServedModel, "served-model"},
    {ResourceKind::kFirewallRule, "firewall-rule"},
    {ResourceKind::kWorkloadPolicy, "workload-policy"},
};

}  // namespace

std::string_view KindName(ResourceKind kind) {
  for (const auto& spelling : kSpellings) {
    if (spelling.kind == kind) return spelling.name;
  }
  return "unknown";
}

ResourceKind KindFromName(std::string_view name) {
  for (const auto& spelling : kSpellings) {
    if (spelling.name == name) return spelling.kind;
  }
  return ResourceKind::kUnknown;
}

}  // namespace tputrain::state
