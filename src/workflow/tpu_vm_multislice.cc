// Multislice TPU VMs through a queued resource, and one Ray cluster across the slices.
#include "tpu_vm_multislice.h"

#include <algorithm>

#include "capacity_problem.h"
#include "provision_steps.h"
#include "reservation_check.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/text.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/workflow/spend.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

using gcp::tpu::QueuedResourceState;

// Nodes the queued resource makes: its slices, or the one queued TPU VM.
int NodeCount(const MultisliceCreate& request) { return std::max(request.slices, 1); }

// The queued resource as last read and, once it is ACTIVE, how many of its slices are READY.
struct Slices {
  gcp::tpu::QueuedResource resource;
  int ready = 0;
};

// The queued resource's own wait, and then every node READY.
gcp::operations::Waiting<Slices> SlicesWaiting(gcp::tpu::Client& client, const MultisliceCreate& request) {
  auto queued = gcp::tpu::QueuedResourceWaiting(client, request.ref);
  return {[&client, &request, get = queued.get]() -> core::Result<Slices> {
            auto resource = get();
            if (!resource) return core::Fail(resource.error());
            Slices slices{std::move(*resource), 0};
            if (slices.resource.state != QueuedResourceState::kActive) return slices;
            for (const auto& id : SliceNodeIds(request.ref.id, request.slices)) {
              auto node = client.GetNode({request.ref.project, request.ref.zone, id});
              if (!node) return core::Fail(node.error());
              if (node->state == "READY") ++slices.ready;
            }
            return slices;
          },
          [&request, done = queued.done](const Slices& slices) {
            return done(slices.resource) &&
                   (slices.resource.state != QueuedResourceState::kActive || slices.ready == NodeCount(request));
          },
          [failed = queued.failed](const Slices& slices) { return failed(slices.resource); }};
}

std::string Describe(const Slices& slices, int count) {
  if (slices.resource.state != QueuedResourceState::kActive) {
    return std::string(gcp::tpu::QueuedResourceStateName(slices.resource.state));
  }
  return "ACTIVE, " + std::to_string(slices.ready) + "/" + std::to_string(count) + " slices READY";
}

core::Status WaitForSlices(ProvisionEnv& env, gcp::tpu::Client& client, const MultisliceCreate& request) {
  const std::string task = "queued-resource " + request.ref.id;
  const auto start = env.clock.Now();
  std::string said;
  auto ready = gcp::operations::Wait(
      SlicesWaiting(client, request), env.poll, {env.clock, env.sleeper, env.cancel}, [&](const Slices& slices) {
        const std::string seen = Describe(slices, NodeCount(request));
        if (seen == said) return;
        auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
        env.reporter.Progress(task, seen + " " + internal::Seconds(elapsed));
        said = seen;
      });
  if (!ready) return core::Fail(ready.error());
  return {};
}

}  // namespace

std::vector<std::string> SliceNodeIds(const std::string& id, int slices) {
  if (slices == 0) return {id};
  std::vector<std::string> ids;
  for (int i = 0; i < slices; ++i) ids.push_back(id + "-" + std::to_string(i));
  return ids;
}

core::Result<Outcome> CreateMultislice(ProvisionEnv& env, const MultisliceCreate& request) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  if (!request.queueing.reservation_name.empty() && env.dry_run == nullptr) {
    // A queued resource on a reservation that cannot hold it waits for ever; one that exists
    // already (a re-run) holds its share, and is adopted or reported as it is.
    auto existing = client.GetQueuedResource(request.ref);
    if (!existing && existing.error().kind != core::ErrorKind::kNotFound) return core::Fail(existing.error());
    if (!existing) {
      auto held = internal::CheckQueuedReservation(env, request.queueing.reservation_name,
                                                   request.spec.accelerator_type, request.slices);
      if (!held) return core::Fail(held.error());
    }
  }
  gcp::tpu::NodeSpec spec = request.spec;
  if (!env.run_id.empty()) spec.labels.emplace(kRunLabel, env.run_id);
  if (env.expires_at > 0) spec.labels.emplace(kExpiresLabel, std::to_string(env.expires_at));
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kQueuedResource;
  steps.name = request.ref.id;
  steps.resource = request.ref.Name();
  steps.details = {{"project", request.ref.project},    {"zone", request.ref.zone},
                   {"queued_resource", request.ref.id}, {"acceleratorType", spec.accelerator_type},
                   {"slices", request.slices},          {"nodes", SliceNodeIds(request.ref.id, request.slices)}};
  if (auto slice = catalog::FindSliceType(spec.accelerator_type); slice && env.dry_run == nullptr) {
    // Nothing bills before the slices are ACTIVE: ready_at is when the wait saw them so.
    steps.details["cost"] = ToJson(MakeCostRecord(env.prices ? env.prices() : nullptr, slice->generation->family,
                                                  spec.spot ? catalog::CapacityMode::kSpot
                                                  : spec.reserved || !request.queueing.reservation_name.empty()
                                                      ? catalog::CapacityMode::kReservation
                                                      : catalog::CapacityMode::kOnDemand,
                                                  request.ref.zone, slice->chips * std::max(1, request.slices)));
  }
  // `tpu-vm delete ID` deletes the queued resource ID with the slices it made.
  steps.delete_command = "tputrain tpu-vm delete " + request.ref.id + " --zone " + request.ref.zone;
  steps.request = client.BuildCreateMultislice(request.ref, spec, request.slices, request.queueing);
  steps.post = [&]() -> core::Result<std::string> {
    auto op = client.CreateMultislice(request.ref, spec, request.slices, request.queueing);
    if (!op) return core::Fail(op.error());
    return op->name;
  };
  steps.wait = [&](const std::string& op) -> core::Status {
    // The operation ends once the request is accepted; the slices come when capacity does.
    auto accepted = gcp::operations::Wait(gcp::tpu::OperationWaiting(client, op), env.poll, env);
    if (!accepted) return core::Fail(accepted.error());
    return WaitForSlices(env, client, request);
  };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto resource = client.GetQueuedResource(request.ref);
    if (!resource) return core::Fail(resource.error());
    internal::Existing existing{{}, internal::RunLabelOf(resource->labels)};
    const auto want = SliceNodeIds(request.ref.id, request.slices);
    if (resource->node_ids != want) {
      existing.differences.push_back("slices: want " + std::to_string(want.size()) + ", have " +
                                     std::to_string(resource->node_ids.size()));
    }
    const auto specs = resource->raw.value("tpu", nlohmann::json::object()).value("nodeSpec", nlohmann::json::array());
    const std::string type =
        specs.empty() ? "" : specs[0].value("node", nlohmann::json::object()).value("acceleratorType", "");
    if (type != spec.accelerator_type) {
      existing.differences.push_back("acceleratorType: want " + spec.accelerator_type + ", have " +
                                     (type.empty() ? "(unset)" : type));
    }
    // The slices' metadata as requested; a resource that does not echo it cannot be compared.
    const auto node = specs.empty() ? nlohmann::json::object() : specs[0].value("node", nlohmann::json::object());
    if (node.contains("metadata")) {
      for (auto& ray : RayBootDifferences(spec.metadata, node["metadata"])) {
        existing.differences.push_back(std::move(ray));
      }
    }
    return existing;
  };
  steps.ready = [&]() { return gcp::operations::ReadOnce(SlicesWaiting(client, request)); };
  steps.remove = [&env, &request]() { return DeleteQueuedResource(env, request.ref); };
  steps.explain = [&](core::Error error) {
    return internal::ExplainCapacity(
        std::move(error),
        {"queued resource " + request.ref.id, request.ref.zone,
         std::to_string(NodeCount(request)) + " x " + spec.accelerator_type,
         request.queueing.reservation_name.empty() ? internal::ModeOf(spec)
                                                   : "reservation " + request.queueing.reservation_name});
  };
  return internal::RunCreate(env, steps);
}

core::Result<Outcome> DeleteQueuedResource(ProvisionEnv& env, const gcp::tpu::QueuedResourceRef& ref) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  internal::DeleteSteps steps{ResourceKind::kQueuedResource,
                              ref.id,
                              ref.Name(),
                              client.BuildDeleteQueuedResource(ref, /*force=*/true),
                              nullptr,
                              nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto op = client.DeleteQueuedResource(ref, /*force=*/true);
    if (!op) return core::Fail(op.error());
    return op->name;
  };
  steps.wait = [&](const std::string& op) -> core::Status {
    auto done = gcp::operations::Wait(gcp::tpu::OperationWaiting(client, op), env.poll, env);
    if (!done) return core::Fail(done.error());
    return {};
  };
  return internal::RunDelete(env, steps);
}

core::Result<Outcome> DeleteTpuVmOrSlices(ProvisionEnv& env, const gcp::tpu::NodeRef& ref) {
  if (env.dry_run != nullptr) return DeleteTpuVm(env, ref);
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  const gcp::tpu::QueuedResourceRef queued{ref.project, ref.zone, ref.node};
  auto resource = client.GetQueuedResource(queued);
  if (resource) return DeleteQueuedResource(env, queued);
  if (resource.error().kind != core::ErrorKind::kNotFound) return core::Fail(resource.error());
  return DeleteTpuVm(env, ref);
}

core::Status HandOutRayHead(ProvisionEnv& env, const MultisliceCreate& request) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  const auto ids = SliceNodeIds(request.ref.id, request.slices);
  auto first = client.GetNode({request.ref.project, request.ref.zone, ids.front()});
  if (!first) return core::Fail(first.error());
  if (first->ip_addresses.empty() || first->ip_addresses.front().empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "TPU VM " + ids.front() + " has no network endpoints to run Ray's head on"));
  }
  const std::string head = first->ip_addresses.front();
  std::vector<std::string> operations;
  for (const auto& id : ids) {
    const gcp::tpu::NodeRef node{request.ref.project, request.ref.zone, id};
    auto found = id == ids.front() ? core::Result<gcp::tpu::Node>(*first) : client.GetNode(node);
    if (!found) return core::Fail(found.error());
    std::map<std::string, std::string> metadata;
    const auto current = found->raw.value("metadata", nlohmann::json::object());
    for (const auto& [key, value] : current.items()) {
      if (value.is_string()) metadata[key] = value.get<std::string>();
    }
    if (metadata[kRayHeadKey] == head) continue;
    metadata[kRayHeadKey] = head;
    auto op = client.PatchNodeMetadata(node, metadata);
    if (!op) return core::Fail(op.error());
    operations.push_back(op->name);
  }
  for (const auto& op : operations) {
    auto done = gcp::operations::Wait(gcp::tpu::OperationWaiting(client, op), env.poll, env);
    if (!done) return core::Fail(done.error());
  }
  env.reporter.Progress("ray " + request.ref.id, "head at " + head + " (" + ids.front() + " worker 0), handed to " +
                                                     std::to_string(ids.size()) + " slices");
  return {};
}

core::Result<Outcome> CreateRayMultislice(ProvisionEnv& env, const MultisliceCreate& request, int hosts,
                                          std::chrono::milliseconds timeout) {
  auto outcome = CreateMultislice(env, request);
  if (!outcome || env.dry_run != nullptr || env.async) return outcome;
  if (auto handed = HandOutRayHead(env, request); !handed) return core::Fail(handed.error());
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  nlohmann::json ray = nlohmann::json::object();
  for (const auto& id : SliceNodeIds(request.ref.id, request.slices)) {
    // The slices boot together; one slice's wait covers most of the next one's.
    auto rows = WaitForRay(client, {request.ref.project, request.ref.zone, id}, hosts, timeout, env, env.reporter);
    if (!rows) return core::Fail(rows.error());
    nlohmann::json hosts_json = nlohmann::json::array();
    for (const auto& row : *rows) {
      hosts_json.push_back({{"worker", row.worker},
                            {"state", std::string(RayHostStateName(row.state))},
                            {"ray_version", row.ray_version}});
    }
    ray[id] = hosts_json;
  }
  outcome->details["ray"] = ray;
  env.reporter.Done("ray " + request.ref.id, "one Ray cluster on " +
                                                 core::Counted(static_cast<long long>(request.slices * hosts), "host") +
                                                 " of " + core::Counted(request.slices, "slice"));
  return outcome;
}

}  // namespace tputrain::workflow
