#pragma once

// The Compute Engine workload policy GKE places a multi-host tpu7x slice's node pool with
// (private to the workflow module): made before its pool, ledgered as `workload-policy`, deleted by
// cleanup after its pools and never while a pool of the run still names it.
#include <string>

#include "tputrain/gcp/compute/resource_policies.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow::internal {

// The policy a run makes for `pool` of `cluster`: "<cluster>-<pool>-wp", its start kept and a hash
// of the whole appended when that is longer than a resource name may be (63).
std::string WorkloadPolicyName(const gcp::container::ClusterRef& cluster, const std::string& pool);

// The policy's reference: the cluster's project and region.
gcp::compute::ResourcePolicyRef PolicyRefOf(const gcp::container::ClusterRef& cluster, const std::string& name);

// Creates the HIGH_THROUGHPUT workload policy with `topology`, or adopts the one that exists with
// the same type and topology (another is an error naming the fields). Its description carries the
// run ("tputrain-run=ID"): resource policies have no labels.
core::Result<Outcome> CreateWorkloadPolicy(ProvisionEnv& env, const gcp::compute::ResourcePolicyRef& ref,
                                           const std::string& topology);

// A --placement-policy of the user's: it must exist and be a workload policy. Its topology, read
// from it; a usage error (exit 2) when it is missing or not one. Not ledgered: never deleted.
core::Result<std::string> ReadPlacementPolicy(ProvisionEnv& env, const gcp::compute::ResourcePolicyRef& ref);

// Deletes it, unless a node pool of the run still names it (its delete failed or has not run):
// then nothing is sent and the error says which. Compute's own refusal of a policy in use
// (resourceInUseByAnotherResource) says so too.
core::Result<Outcome> DeleteWorkloadPolicy(ProvisionEnv& env, const gcp::compute::ResourcePolicyRef& ref);

}  // namespace tputrain::workflow::internal
