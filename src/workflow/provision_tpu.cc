// Cloud TPU VMs: independent resources, so several are created at once.
#include <future>

#include "capacity_problem.h"
#include "provision_steps.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/fan_out.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/spend.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

// A done operation's metadata.endTime: when the node became READY, or went.
std::string EndTimeOf(const gcp::tpu::Operation& operation) { return core::StringAt(operation.metadata, "endTime"); }

}  // namespace

core::Result<Outcome> CreateTpuVm(ProvisionEnv& env, const gcp::tpu::NodeRef& ref, const gcp::tpu::NodeSpec& request) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  gcp::tpu::NodeSpec spec = request;
  if (!env.run_id.empty()) spec.labels.emplace(kRunLabel, env.run_id);
  if (env.expires_at > 0) spec.labels.emplace(kExpiresLabel, std::to_string(env.expires_at));
  const std::string task = "tpu-vm " + ref.node;
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kTpuVm;
  steps.name = ref.node;
  steps.resource = ref.Name();
  steps.details = {
      {"project", ref.project}, {"zone", ref.zone}, {"node", ref.node}, {"acceleratorType", spec.accelerator_type}};
  if (env.expires_at > 0) steps.details["expires_at"] = env.expires_at;
  if (auto slice = catalog::FindSliceType(spec.accelerator_type); slice && env.dry_run == nullptr) {
    const auto capacity = spec.spot       ? catalog::CapacityMode::kSpot
                          : spec.reserved ? catalog::CapacityMode::kReservation
                                          : catalog::CapacityMode::kOnDemand;
    steps.details["cost"] = ToJson(MakeCostRecord(env.prices ? env.prices() : nullptr, slice->generation->family,
                                                  capacity, ref.zone, slice->chips));
  }
  steps.delete_command = "tputrain tpu-vm delete " + ref.node + " --zone " + ref.zone;
  steps.request = client.BuildCreateNode(ref, spec);
  steps.post = [&]() -> core::Result<std::string> {
    auto op = client.CreateNode(ref, spec);
    if (!op) return core::Fail(op.error());
    return op->name;
  };
  std::string ended_at;
  steps.ended_at = [&ended_at] { return ended_at; };
  steps.wait = [&](const std::string& op) -> core::Status {
    auto start = env.clock.Now();
    auto done = gcp::operations::Wait(
        gcp::tpu::OperationWaiting(client, op), env.poll, env, [&](const gcp::tpu::Operation& seen) {
          auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
          env.reporter.Progress(task, std::string(seen.done ? "done " : "creating ") + internal::Seconds(elapsed));
        });
    if (!done) return core::Fail(done.error());
    ended_at = EndTimeOf(*done);
    return {};
  };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto node = client.GetNode(ref);
    if (!node) return core::Fail(node.error());
    auto differences = gcp::tpu::DiffNode(spec, *node);
    for (auto& ray : RayBootDifferences(spec.metadata, node->raw.value("metadata", nlohmann::json()))) {
      differences.push_back(std::move(ray));
    }
    return internal::Existing{std::move(differences), internal::RunLabelOf(node->labels)};
  };
  steps.ready = [&]() -> core::Result<bool> {
    auto node = client.GetNode(ref);
    if (!node) return core::Fail(node.error());
    // States a TPU VM does not leave by itself: waiting would not make it usable.
    for (const char* stuck : {"PREEMPTED", "TERMINATED", "STOPPED"}) {
      if (node->state == stuck)
        return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition, "state " + node->state));
    }
    return node->state == "READY";
  };
  steps.remove = [&env, &ref]() { return DeleteTpuVm(env, ref); };
  steps.explain = [&](core::Error error) {
    return internal::ExplainCapacity(std::move(error),
                                     {"TPU VM " + ref.node, ref.zone, spec.accelerator_type, internal::ModeOf(spec)});
  };
  return internal::RunCreate(env, steps);
}

core::Result<std::vector<Outcome>> CreateTpuVms(
    ProvisionEnv& env, const std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>>& vms) {
  auto results = core::FanOut(
      vms, [&env](const auto& vm) { return CreateTpuVm(env, vm.first, vm.second); }, env.dry_run != nullptr);
  std::vector<Outcome> outcomes;
  std::optional<core::Error> error;
  for (auto& result : results) {
    if (result) {
      outcomes.push_back(std::move(*result));
    } else if (!error) {
      error = result.error();
    } else {
      error->message += "\n" + result.error().message;
    }
  }
  if (error) return core::Fail(*error);
  return outcomes;
}

core::Result<Outcome> DeleteTpuVm(ProvisionEnv& env, const gcp::tpu::NodeRef& ref) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  internal::DeleteSteps steps{ResourceKind::kTpuVm,        ref.node, ref.Name(),
                              client.BuildDeleteNode(ref), nullptr,  nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto op = client.DeleteNode(ref);
    if (!op) return core::Fail(op.error());
    return op->name;
  };
  std::string ended_at;
  steps.ended_at = [&ended_at] { return ended_at; };
  steps.wait = [&](const std::string& op) -> core::Status {
    auto done = gcp::operations::Wait(gcp::tpu::OperationWaiting(client, op), env.poll, env);
    if (!done) return core::Fail(done.error());
    ended_at = EndTimeOf(*done);
    return {};
  };
  return internal::RunDelete(env, steps);
}

}  // namespace tputrain::workflow
