// GKE clusters and node pools: the cluster first, then every pool at once.
#include <future>

#include "capacity_problem.h"
#include "node_versions.h"
#include "provision_steps.h"
#include "reservation_check.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/fan_out.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/text.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/spend.h"
#include "workload_policy.h"

namespace tputrain::workflow {
namespace {

using gcp::container::ClusterRef;
using gcp::container::NodePoolRef;
using gcp::container::NodePoolSpec;
using internal::CreateSteps;

// One live line per operation: its status and how long it has run.
gcp::operations::Progress<gcp::container::Operation> ProgressOf(ProvisionEnv& env, const std::string& task) {
  auto start = env.clock.Now();
  return [&env, task, start](const gcp::container::Operation& op) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
    env.reporter.Progress(task, op.operation_type + " " + op.status + " " + internal::Seconds(elapsed));
  };
}

// `ended_at`, when given, gets the operation's endTime: when a pool's nodes were made, or went.
core::Status WaitContainer(ProvisionEnv& env, gcp::container::Client& client, const ClusterRef& ref,
                           const std::string& operation, const std::string& task, std::string* ended_at = nullptr) {
  auto done = gcp::operations::Wait(gcp::container::OperationWaiting(client, ref.Location(), operation), env.poll,
                                    {env.clock, env.sleeper, env.cancel}, ProgressOf(env, task));
  if (!done) return core::Fail(done.error());
  if (ended_at != nullptr) *ended_at = core::StringAt(done->raw, "endTime");
  return {};
}

// A TPU pool's cost record: its chips (nodes × chips per node), capacity and zone, priced.
void RecordPoolCost(ProvisionEnv& env, const ClusterRef& cluster, const NodePoolSpec& spec, nlohmann::json& details) {
  auto slice = SliceOfPool(spec);
  if (!slice || env.dry_run != nullptr) return;
  const int nodes = spec.node_count > 0 ? spec.node_count : slice->hosts;
  const auto capacity = PoolCapacityMode(spec.spot, !spec.reservation.empty(), spec.flex_start);
  details["cost"] = ToJson(MakeCostRecord(env.prices ? env.prices() : nullptr, slice->generation->family, capacity,
                                          cluster.location, nodes * slice->chips_per_host));
}

std::map<std::string, std::string> WithRunLabel(const ProvisionEnv& env, std::map<std::string, std::string> labels) {
  if (!env.run_id.empty()) labels.emplace(kRunLabel, env.run_id);
  if (env.expires_at > 0) labels.emplace(kExpiresLabel, std::to_string(env.expires_at));
  return labels;
}

// A multi-host tpu7x slice's placement: the run's own workload policy, made (or adopted) now, or
// the user's --placement-policy, read for its topology. Its outcome, when the run made one.
core::Result<std::optional<Outcome>> PlacePool(ProvisionEnv& env, const ClusterRef& cluster, NodePoolSpec& spec) {
  if (spec.placement_policy.empty() && !spec.own_placement_policy) return std::optional<Outcome>();
  if (spec.own_placement_policy) {
    if (spec.placement_policy.empty()) spec.placement_policy = internal::WorkloadPolicyName(cluster, spec.name);
    auto made =
        internal::CreateWorkloadPolicy(env, internal::PolicyRefOf(cluster, spec.placement_policy), spec.slice_topology);
    if (!made) return core::Fail(made.error());
    return std::optional<Outcome>(*made);
  }
  if (env.dry_run != nullptr) return std::optional<Outcome>();
  auto topology = internal::ReadPlacementPolicy(env, internal::PolicyRefOf(cluster, spec.placement_policy));
  if (!topology) return core::Fail(topology.error());
  auto slice = catalog::FindSliceByMachineType(spec.machine_type, *topology);
  if (!slice) {
    return core::Fail(core::Error::Usage("--placement-policy: " + spec.placement_policy + "'s topology " + *topology +
                                         ": " + slice.error().message));
  }
  if (!spec.slice_topology.empty() && spec.slice_topology != *topology) {
    return core::Fail(core::Error::Usage("--placement-policy: " + spec.placement_policy + " places a " + *topology +
                                         " slice, not " + spec.slice_topology));
  }
  const int hosts = spec.autoscaling ? spec.autoscaling->max_node_count : spec.node_count;
  if (hosts != slice->hosts) {
    return core::Fail(core::Error::Usage("--num-nodes: " + spec.placement_policy + "'s topology " + *topology +
                                         " has " + core::Counted(slice->hosts, "host") + ", not " +
                                         std::to_string(hosts)));
  }
  spec.slice_topology = *topology;
  return std::optional<Outcome>();
}

core::Result<Outcome> CreateOnePool(ProvisionEnv& env, const ClusterRef& cluster, NodePoolSpec spec) {
  gcp::container::Client client(env.transport, env.endpoints.container);
  spec.resource_labels = WithRunLabel(env, spec.resource_labels);
  NodePoolRef ref{cluster, spec.name};
  const std::string task = "nodepool " + spec.name;
  CreateSteps steps;
  steps.kind = ResourceKind::kNodePool;
  steps.name = spec.name;
  steps.resource = ref.Name();
  steps.details = {{"project", cluster.project},       {"location", cluster.location},
                   {"cluster", cluster.cluster},       {"nodepool", spec.name},
                   {"machineType", spec.machine_type}, {"tpuTopology", spec.tpu_topology},
                   {"nodeCount", spec.node_count}};
  if (!spec.placement_policy.empty()) steps.details["placementPolicy"] = spec.placement_policy;
  if (!spec.slice_topology.empty() && spec.slice_topology != spec.tpu_topology) {
    steps.details["sliceTopology"] = spec.slice_topology;
  }
  RecordPoolCost(env, cluster, spec, steps.details);
  steps.delete_command =
      "tputrain nodepool delete " + spec.name + " --cluster " + cluster.cluster + " --location " + cluster.location;
  steps.request = client.BuildCreateNodePool(cluster, spec);
  steps.post = [&]() {
    return internal::RetryWhileBusy(env, task, [&]() -> core::Result<std::string> {
      auto op = client.CreateNodePool(cluster, spec);
      if (!op) return core::Fail(op.error());
      return op->name;
    });
  };
  std::string ended_at;
  steps.ended_at = [&ended_at] { return ended_at; };
  steps.wait = [&](const std::string& op) { return WaitContainer(env, client, cluster, op, task, &ended_at); };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto pool = client.GetNodePool(ref);
    if (!pool) return core::Fail(pool.error());
    return internal::Existing{gcp::container::DiffNodePool(spec, *pool), internal::RunLabelOf(pool->resource_labels)};
  };
  steps.ready = [&]() -> core::Result<bool> {
    auto pool = client.GetNodePool(ref);
    if (!pool) return core::Fail(pool.error());
    if (pool->status == "ERROR") {
      auto error = core::Error::Make(core::ErrorKind::kResourceExhausted, pool->status_message);
      if (!pool->conditions.empty()) error.reason = pool->conditions.front().code;
      return core::Fail(error);
    }
    return pool->status == "RUNNING";
  };
  steps.remove = [&env, ref]() { return DeleteNodePool(env, ref); };
  std::string where = spec.node_locations.empty() ? cluster.location : spec.node_locations.front();
  const std::string shape = spec.slice_topology.empty() ? spec.tpu_topology : spec.slice_topology;
  steps.explain = [&, where](core::Error error) {
    return internal::ExplainCapacity(
        std::move(error), {"node pool " + spec.name, where, spec.machine_type + (shape.empty() ? "" : " " + shape),
                           internal::ModeOf(spec)});
  };
  return internal::RunCreate(env, steps);
}

}  // namespace

std::string_view OutcomeActionPhrase(OutcomeAction action) {
  switch (action) {
    case OutcomeAction::kCreated:
      return "created";
    case OutcomeAction::kResumed:
      return "resumed";
    case OutcomeAction::kAdopted:
      return "adopted (not this run's)";
    case OutcomeAction::kStarted:
      return "started";
    case OutcomeAction::kDeleted:
      return "deleted";
    case OutcomeAction::kAlreadyGone:
      return "already gone";
    case OutcomeAction::kBound:
      return "bound";
    case OutcomeAction::kAlreadyBound:
      return "already bound";
    case OutcomeAction::kUnbound:
      return "unbound";
    case OutcomeAction::kWouldSend:
      return "would send";
    case OutcomeAction::kWouldStop:
      return "would stop";
    case OutcomeAction::kWouldDelete:
      return "would delete";
    case OutcomeAction::kStopped:
      return "stopped";
    case OutcomeAction::kAlreadyFinished:
      return "already finished";
    case OutcomeAction::kGoesWithRayCluster:
      return "goes with its RayCluster";
    case OutcomeAction::kGoesWithTpuVm:
      return "goes with its TPU VM";
    case OutcomeAction::kHeadUnreachable:
      return "Ray head unreachable";
    case OutcomeAction::kUnpublished:
      return "unpublished";
    case OutcomeAction::kWouldUnpublish:
      return "would unpublish";
    case OutcomeAction::kServerGone:
      return "sax-http gone";
    case OutcomeAction::kGoesWithCluster:
      return "goes with its cluster";
    case OutcomeAction::kWentWithCluster:
      return "went with its cluster";
    case OutcomeAction::kKeptShared:
      return "kept: holds others' objects";
  }
  return "unknown";
}

nlohmann::json ToJson(const Outcome& outcome) {
  nlohmann::json json = {{"kind", state::KindName(outcome.kind)},
                         {"name", outcome.name},
                         {"resource", outcome.resource},
                         {"action", std::string(OutcomeActionPhrase(outcome.action))}};
  if (!outcome.operation.empty()) json["operation"] = outcome.operation;
  if (!outcome.details.empty()) json["details"] = outcome.details;
  return json;
}

nlohmann::json ToJson(const std::vector<Outcome>& outcomes) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& outcome : outcomes) json.push_back(ToJson(outcome));
  return json;
}

core::Result<std::vector<Outcome>> CreateNodePools(ProvisionEnv& env, const ClusterRef& cluster,
                                                   const std::vector<NodePoolSpec>& asked) {
  // Before anything is created: a pool of a generation with a minimum GKE version is pinned to the
  // cluster's version (read once), which must be at or above it.
  auto pinned = internal::PinNodeVersions(env, cluster, asked);
  if (!pinned) return core::Fail(pinned.error());
  const std::vector<NodePoolSpec>& pools = *pinned;
  // Each pool is its own operation; GKE runs several on one cluster at once, so they go
  // together and the slowest decides how long this takes. A pool's workload policy goes first.
  // A dry run only lists requests, in order.
  auto results = core::FanOut(
      pools,
      [&env, &cluster](const NodePoolSpec& pool) -> core::Result<std::vector<Outcome>> {
        NodePoolSpec placed = pool;
        auto placement = PlacePool(env, cluster, placed);
        if (!placement) return core::Fail(placement.error());
        std::vector<Outcome> made;
        if (*placement) made.push_back(**placement);
        auto created = CreateOnePool(env, cluster, placed);
        if (!created) return core::Fail(created.error());
        made.push_back(*created);
        return made;
      },
      env.dry_run != nullptr);
  std::vector<Outcome> outcomes;
  std::string failures;
  std::optional<core::Error> first_error;
  for (size_t i = 0; i < results.size(); ++i) {
    auto& result = results[i];
    if (result) {
      for (auto& outcome : *result) outcomes.push_back(std::move(outcome));
      continue;
    }
    if (!first_error) first_error = result.error();
    failures +=
        (failures.empty() ? "" : "\n") + std::string("node pool ") + pools[i].name + ": " + result.error().message;
  }
  if (first_error) {
    core::Error error = *first_error;
    error.message = failures;
    if (!outcomes.empty()) {
      error.message += "\n(done: ";
      for (size_t i = 0; i < outcomes.size(); ++i)
        error.message +=
            (i ? ", " : "") + outcomes[i].name + " " + std::string(OutcomeActionPhrase(outcomes[i].action));
      error.message += ")";
    }
    return core::Fail(error);
  }
  return outcomes;
}

core::Status CheckClusterCreate(const ClusterCreate& request) {
  return internal::CheckClusterVersion(request.spec, request.pools);
}

core::Result<std::vector<Outcome>> CreateCluster(ProvisionEnv& env, const ClusterCreate& request) {
  // Before any call: a version the pools' TPU generation does not run on.
  if (auto recent = CheckClusterCreate(request); !recent) return core::Fail(recent.error());
  // Before the cluster: a pool its reservation cannot hold would leave a cluster nobody asked for.
  if (auto held = internal::CheckPoolReservations(env, request.ref, request.pools, request.spec.node_locations);
      !held) {
    return core::Fail(held.error());
  }
  gcp::container::Client client(env.transport, env.endpoints.container);
  gcp::container::ClusterSpec spec = request.spec;
  spec.resource_labels = WithRunLabel(env, spec.resource_labels);
  const ClusterRef& ref = request.ref;
  const std::string task = "cluster " + spec.name;
  CreateSteps steps;
  steps.kind = ResourceKind::kCluster;
  steps.name = spec.name;
  steps.resource = ref.Name();
  steps.details = {{"project", ref.project}, {"location", ref.location}, {"cluster", ref.cluster}};
  steps.delete_command = "tputrain cluster delete " + ref.cluster + " --location " + ref.location;
  steps.request = client.BuildCreateCluster(ref.Location(), spec);
  steps.post = [&]() -> core::Result<std::string> {
    auto op = client.CreateCluster(ref.Location(), spec);
    if (!op) return core::Fail(op.error());
    return op->name;
  };
  steps.wait = [&](const std::string& op) { return WaitContainer(env, client, ref, op, task); };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto cluster = client.GetCluster(ref);
    if (!cluster) return core::Fail(cluster.error());
    return internal::Existing{gcp::container::DiffCluster(spec, *cluster),
                              internal::RunLabelOf(cluster->resource_labels)};
  };
  steps.ready = [&]() -> core::Result<bool> {
    auto cluster = client.GetCluster(ref);
    if (!cluster) return core::Fail(cluster.error());
    if (cluster->status == "ERROR")
      return core::Fail(core::Error::Make(core::ErrorKind::kInternal, cluster->status_message));
    return cluster->status == "RUNNING";
  };
  steps.remove = [&env, &ref]() { return DeleteCluster(env, ref); };
  steps.explain = [&](core::Error error) {
    return internal::ExplainCapacity(
        std::move(error),
        {"cluster " + spec.name, ref.location,
         spec.default_pool.machine_type.empty() ? "default machine type" : spec.default_pool.machine_type,
         internal::ModeOf(spec.default_pool)});
  };
  auto cluster = internal::RunCreate(env, steps);
  if (!cluster) return core::Fail(cluster.error());
  std::vector<Outcome> outcomes{*cluster};
  if (request.pools.empty()) return outcomes;
  if (env.async && env.dry_run == nullptr && cluster->action == OutcomeAction::kStarted) {
    // Pools need a RUNNING cluster; --async stops at the cluster's operation.
    env.reporter.Warn(
        "--async: the node pools are not created until the cluster is RUNNING; run 'tputrain nodepool create' then");
    return outcomes;
  }
  auto pools = CreateNodePools(env, ref, request.pools);
  if (!pools) {
    core::Error error = pools.error();
    error.message =
        "cluster " + spec.name + " " + std::string(OutcomeActionPhrase(cluster->action)) + "; " + error.message;
    return core::Fail(error);
  }
  outcomes.insert(outcomes.end(), pools->begin(), pools->end());
  return outcomes;
}

core::Result<Outcome> DeleteCluster(ProvisionEnv& env, const ClusterRef& ref) {
  gcp::container::Client client(env.transport, env.endpoints.container);
  internal::DeleteSteps steps{ResourceKind::kCluster,         ref.cluster, ref.Name(),
                              client.BuildDeleteCluster(ref), nullptr,     nullptr};
  steps.send = [&]() {
    return internal::RetryWhileBusy(env, "cluster " + ref.cluster, [&]() -> core::Result<std::string> {
      auto op = client.DeleteCluster(ref);
      if (!op) return core::Fail(op.error());
      return op->name;
    });
  };
  steps.wait = [&](const std::string& op) { return WaitContainer(env, client, ref, op, "cluster " + ref.cluster); };
  return internal::RunDelete(env, steps);
}

core::Result<Outcome> DeleteNodePool(ProvisionEnv& env, const NodePoolRef& ref) {
  gcp::container::Client client(env.transport, env.endpoints.container);
  internal::DeleteSteps steps{ResourceKind::kNodePool,         ref.pool, ref.Name(),
                              client.BuildDeleteNodePool(ref), nullptr,  nullptr};
  steps.send = [&]() {
    return internal::RetryWhileBusy(env, "nodepool " + ref.pool, [&]() -> core::Result<std::string> {
      auto op = client.DeleteNodePool(ref);
      if (!op) return core::Fail(op.error());
      return op->name;
    });
  };
  std::string ended_at;
  steps.ended_at = [&ended_at] { return ended_at; };
  steps.wait = [&](const std::string& op) {
    return WaitContainer(env, client, ref.cluster, op, "nodepool " + ref.pool, &ended_at);
  };
  return internal::RunDelete(env, steps);
}

}  // namespace tputrain::workflow
