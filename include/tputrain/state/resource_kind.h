#pragma once

#include <string_view>

namespace tputrain::state {

// What a ledger entry is. Code decides on this; the ledger file, tables and --format json use
// its name (KindName), the run ledger's most durable spelling.
enum class ResourceKind {
  kCluster,         // "cluster": a GKE cluster
  kNodePool,        // "nodepool"
  kTpuVm,           // "tpu-vm": a Cloud TPU VM
  kQueuedResource,  // "queued-resource": Cloud TPU VMs made together (multislice)
  kBucket,          // "bucket": a Cloud Storage bucket
  kServiceAccount,  // "service-account"
  kIamMember,       // "iam-member": one role binding
  kK8sObject,       // "k8s-object": an object applied to a Kubernetes cluster
  kRayJob,          // "ray-job": a job submitted to a Ray cluster
  kRepository,      // "repository": an Artifact Registry repository
  kBuild,           // "build": a Cloud Build build and the source tarball it was given
  kServedModel,     // "served-model": a model published to a Saxml cell through sax-http
  kFirewallRule,    // "firewall-rule": a VPC firewall rule (the IAP range to a TPU VM's Ray)
  kWorkloadPolicy,  // "workload-policy": a Compute resource policy placing a tpu7x slice's node pool
  kUnknown,         // a kind this release does not know (a later release's); kept as written
};

// The ledger's name of `kind`; "unknown" for kUnknown (LedgerEntry keeps the name it read).
std::string_view KindName(ResourceKind kind);

// The kind a ledger names; kUnknown for a name this release does not know.
ResourceKind KindFromName(std::string_view name);

}  // namespace tputrain::state
