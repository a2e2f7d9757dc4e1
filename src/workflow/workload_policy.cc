#include "workload_policy.h"

#include <cstdio>
#include <functional>

#include "provision_steps.h"
#include "tputrain/core/gcp_location.h"

namespace tputrain::workflow::internal {
namespace {

using gcp::compute::ResourcePolicyClient;
using gcp::compute::ResourcePolicyRef;
using gcp::compute::WorkloadPolicy;

constexpr char kRunMarker[] = "tputrain-run=";
constexpr size_t kMaxName = 63;

// The operation to wait for, or "" when it came back DONE; a failed DONE one is its error.
core::Result<std::string> Pending(const core::Result<gcp::compute::Operation>& op) {
  if (!op) return core::Fail(op.error());
  if (op->error) return core::Fail(*op->error);
  return op->done() ? std::string() : op->name;
}

core::Status Wait(ProvisionEnv& env, ResourcePolicyClient& client, const ResourcePolicyRef& ref,
                  const std::string& operation, const std::string& task) {
  env.reporter.Progress(task, "waiting for " + operation);
  auto done = gcp::operations::Wait(gcp::compute::RegionOperationWaiting(client, ref.project, ref.region, operation),
                                    env.poll, env);
  if (!done) return core::Fail(done.error());
  return {};
}

std::string RunOf(const std::string& description) {
  return description.rfind(kRunMarker, 0) == 0 ? description.substr(sizeof(kRunMarker) - 1) : "";
}

bool IsInUse(const core::Error& error) {
  return error.reason == "resourceInUseByAnotherResource" ||
         error.message.find("is already being used by") != std::string::npos;
}

// A live node pool entry of the run that names the policy.
std::string PoolNaming(ProvisionEnv& env, const ResourcePolicyRef& ref) {
  if (env.ledger == nullptr || env.run_id.empty()) return "";
  auto ledger = env.ledger->Load(env.run_id);
  if (!ledger) return "";
  for (const auto* entry : ledger->Live()) {
    if (entry->kind != ResourceKind::kNodePool || !entry->details.is_object()) continue;
    const auto& details = entry->details;
    if (details.value("placementPolicy", "") == ref.name && details.value("project", "") == ref.project &&
        core::RegionOf(details.value("location", "")) == ref.region) {
      return details.value("cluster", "") + "/" + details.value("nodepool", "");
    }
  }
  return "";
}

}  // namespace

std::string WorkloadPolicyName(const gcp::container::ClusterRef& cluster, const std::string& pool) {
  std::string name = cluster.cluster + "-" + pool + "-wp";
  if (name.size() <= kMaxName) return name;
  char hash[9];
  std::snprintf(hash, sizeof(hash), "%08zx",
                std::hash<std::string>{}(cluster.Name() + "/" + pool) & size_t{0xffffffff});
  name.resize(kMaxName - 9);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name + "-" + hash;
}

ResourcePolicyRef PolicyRefOf(const gcp::container::ClusterRef& cluster, const std::string& name) {
  return {cluster.project, core::RegionOf(cluster.location), name};
}

core::Result<Outcome> CreateWorkloadPolicy(ProvisionEnv& env, const ResourcePolicyRef& ref,
                                           const std::string& topology) {
  ResourcePolicyClient client(env.transport, env.endpoints.compute);
  const WorkloadPolicy policy{gcp::compute::kHighThroughput, topology,
                              env.run_id.empty() ? "" : kRunMarker + env.run_id, "", true};
  const std::string task = "workload-policy " + ref.name;
  CreateSteps steps;
  steps.kind = ResourceKind::kWorkloadPolicy;
  steps.name = ref.name;
  steps.resource = ref.Key();
  steps.details = {{"project", ref.project},
                   {"region", ref.region},
                   {"policy", ref.name},
                   {"type", policy.type},
                   {"acceleratorTopology", topology}};
  steps.request = client.BuildInsert(ref, policy);
  steps.post = [&]() { return Pending(client.Insert(ref, policy)); };
  steps.wait = [&](const std::string& op) { return Wait(env, client, ref, op, task); };
  steps.inspect = [&]() -> core::Result<Existing> {
    auto existing = client.Get(ref);
    if (!existing) return core::Fail(existing.error());
    Existing out;
    auto compare = [&](const char* field, const std::string& want, const std::string& have) {
      if (want != have) {
        out.differences.push_back(std::string(field) + ": want " + want + ", have " +
                                  (have.empty() ? "(unset)" : have));
      }
    };
    if (!existing->is_workload_policy) out.differences.push_back("workloadPolicy: want one, have another kind");
    compare("workloadPolicy.type", policy.type, existing->type);
    compare("workloadPolicy.acceleratorTopology", topology, existing->accelerator_topology);
    out.run_label = RunOf(existing->description);
    return out;
  };
  steps.ready = [&]() -> core::Result<bool> {
    auto existing = client.Get(ref);
    if (!existing) return core::Fail(existing.error());
    if (existing->status == "INVALID" || existing->status == "EXPIRED") {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition, "it is " + existing->status));
    }
    return existing->status.empty() || existing->status == "READY";
  };
  return RunCreate(env, steps);
}

core::Result<std::string> ReadPlacementPolicy(ProvisionEnv& env, const ResourcePolicyRef& ref) {
  ResourcePolicyClient client(env.transport, env.endpoints.compute);
  auto existing = client.Get(ref);
  if (!existing && existing.error().kind == core::ErrorKind::kNotFound) {
    return core::Fail(core::Error::Usage("--placement-policy: no resource policy " + ref.name + " in " + ref.project +
                                         ", region " + ref.region +
                                         " (create it with gcloud compute resource-policies create workload-policy, "
                                         "or leave the flag out and tputrain makes one)"));
  }
  if (!existing) return core::Fail(existing.error());
  if (!existing->is_workload_policy || existing->accelerator_topology.empty()) {
    return core::Fail(core::Error::Usage("--placement-policy: " + ref.name +
                                         " is not a workload policy with an accelerator topology"));
  }
  return existing->accelerator_topology;
}

core::Result<Outcome> DeleteWorkloadPolicy(ProvisionEnv& env, const ResourcePolicyRef& ref) {
  const std::string task = "workload-policy " + ref.name;
  if (env.dry_run == nullptr) {
    if (auto pool = PoolNaming(env, ref); !pool.empty()) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          task + ": node pool " + pool +
                                              " still names it (its delete has not finished); it goes once the pool "
                                              "is gone: run cleanup again"));
    }
  }
  ResourcePolicyClient client(env.transport, env.endpoints.compute);
  DeleteSteps steps{ResourceKind::kWorkloadPolicy, ref.name, ref.Key(), client.BuildDelete(ref), nullptr, nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto sent = Pending(client.Delete(ref));
    if (!sent && IsInUse(sent.error())) {
      core::Error error = sent.error();
      error.kind = core::ErrorKind::kFailedPrecondition;
      error.message =
          task + ": a node pool still names it (" + error.message + "); delete that pool first, then run cleanup again";
      return core::Fail(error);
    }
    return sent;
  };
  steps.wait = [&](const std::string& op) { return Wait(env, client, ref, op, task); };
  return RunDelete(env, steps);
}

}  // namespace tputrain::workflow::internal
