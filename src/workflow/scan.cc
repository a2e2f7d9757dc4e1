#include "tputrain/workflow/scan.h"

#include <algorithm>
#include <set>

#include "tpu_vm_multislice.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/fan_out.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/storage/client.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/cleanup.h"

namespace tputrain::workflow {
namespace {

using Keys = std::set<LedgeredKey>;

// The label's value, when the resource carries it and it is the run asked for.
std::optional<std::string> RunOf(const std::map<std::string, std::string>& labels, const std::string& wanted) {
  auto it = labels.find(kRunLabel);
  if (it == labels.end() || it->second.empty()) return std::nullopt;
  if (!wanted.empty() && it->second != wanted) return std::nullopt;
  return it->second;
}

int64_t ExpiresAt(const std::map<std::string, std::string>& labels) {
  auto it = labels.find(kExpiresLabel);
  if (it == labels.end() || it->second.empty() || it->second.size() > 18) return 0;
  int64_t value = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

// Whether a labelled resource is listed: not in a ledger; or, for --expired, past its time.
bool Listed(const ScanRequest& request, const Keys& ledgered, const LedgeredKey& key,
            const std::map<std::string, std::string>& labels) {
  if (!request.expired) return !ledgered.contains(key);
  const int64_t expires = ExpiresAt(labels);
  return expires > 0 && expires <= request.now_unix;
}

// What a TPU slice burns: its generation and chips, when `accelerator` is one tputrain knows.
void SetChips(LeakedResource& leaked, const std::optional<catalog::TpuSliceType>& slice, int count,
              const std::map<std::string, std::string>& labels) {
  leaked.expires_at = ExpiresAt(labels);
  if (!slice) return;
  leaked.generation = slice->generation->family;
  leaked.chips = count;
}

std::optional<catalog::TpuSliceType> SliceOf(const std::string& accelerator_type) {
  auto slice = catalog::FindSliceType(accelerator_type);
  if (!slice) return std::nullopt;
  return *slice;
}

core::Status ScanClusters(ProvisionEnv& env, const ScanRequest& request, const Keys& ledgered,
                          std::vector<LeakedResource>& out) {
  gcp::container::Client client(env.transport, env.endpoints.container);
  std::vector<std::string> locations = request.locations.empty() ? std::vector<std::string>{"-"} : request.locations;
  for (const auto& location : locations) {
    auto clusters = client.ListClusters({request.project, location});
    if (!clusters) return core::Fail(clusters.error());
    for (const auto& cluster : *clusters) {
      gcp::container::ClusterRef ref{request.project, cluster.location.empty() ? location : cluster.location,
                                     cluster.name};
      std::vector<LeakedResource> pools;
      // Pools of a run that the scan does not list: another run's, or a live one. (A pool with no
      // run label is the cluster's own, its default pool: it goes with it.)
      std::vector<std::string> held;
      for (const auto& pool : cluster.node_pools) {
        gcp::container::NodePoolRef pool_ref{ref, pool.name};
        auto run = RunOf(pool.resource_labels, request.run_id);
        if (!run || !Listed(request, ledgered, {ResourceKind::kNodePool, pool_ref.Name()}, pool.resource_labels)) {
          if (auto owner = RunOf(pool.resource_labels, ""))
            held.push_back("node pool " + pool.name + " of run " + *owner);
          continue;
        }
        pools.push_back({ResourceKind::kNodePool, pool.name, pool_ref.Name(), *run, ref.location, ref.Name()});
        auto slice = catalog::FindSliceByMachineType(pool.machine_type, pool.tpu_topology);
        SetChips(pools.back(), slice ? std::optional(*slice) : std::nullopt,
                 slice ? pool.node_count * slice->chips_per_host : 0, pool.resource_labels);
        pools.back().capacity = PoolCapacityMode(pool.spot, !pool.reservation.empty(), pool.flex_start);
      }
      if (auto run = RunOf(cluster.resource_labels, request.run_id);
          run && Listed(request, ledgered, {ResourceKind::kCluster, ref.Name()}, cluster.resource_labels)) {
        out.push_back({ResourceKind::kCluster, cluster.name, ref.Name(), *run, ref.location, ""});
        out.back().expires_at = ExpiresAt(cluster.resource_labels);
        for (const auto& pool : pools) out.back().goes_with.push_back(pool.name);
        for (const auto& pool : held) out.back().kept += (out.back().kept.empty() ? "it holds " : ", ") + pool;
      }
      out.insert(out.end(), pools.begin(), pools.end());
    }
  }
  return {};
}

core::Status ScanTpuVms(ProvisionEnv& env, const ScanRequest& request, const Keys& ledgered,
                        std::vector<LeakedResource>& out) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  std::vector<std::string> zones = request.tpu_zones.empty() ? std::vector<std::string>{"-"} : request.tpu_zones;
  for (const auto& zone : zones) {
    auto nodes = client.ListNodes(request.project, zone);
    if (!nodes) return core::Fail(nodes.error());
    for (const auto& node : *nodes) {
      auto run = RunOf(node.labels, request.run_id);
      if (!run || !Listed(request, ledgered, {ResourceKind::kTpuVm, node.name}, node.labels)) continue;
      // A queued resource's node goes with it (ScanQueuedResources); deleted alone, the queued
      // resource would stay, SUSPENDED.
      if (!node.raw.value("queuedResource", "").empty()) continue;
      out.push_back({ResourceKind::kTpuVm, core::LastSegment(node.name), node.name, *run,
                     core::SegmentAfter(node.name, "locations"), ""});
      auto slice = SliceOf(node.accelerator_type);
      SetChips(out.back(), slice, slice ? slice->chips : 0, node.labels);
      out.back().capacity = node.spot ? catalog::CapacityMode::kSpot : catalog::CapacityMode::kOnDemand;
    }
  }
  return {};
}

core::Status ScanQueuedResources(ProvisionEnv& env, const ScanRequest& request, const Keys& ledgered,
                                 std::vector<LeakedResource>& out) {
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  std::vector<std::string> zones = request.tpu_zones.empty() ? std::vector<std::string>{"-"} : request.tpu_zones;
  for (const auto& zone : zones) {
    auto resources = client.ListQueuedResources(request.project, zone);
    if (!resources) return core::Fail(resources.error());
    for (const auto& resource : *resources) {
      auto run = RunOf(resource.labels, request.run_id);
      if (!run || !Listed(request, ledgered, {ResourceKind::kQueuedResource, resource.name}, resource.labels)) continue;
      out.push_back({ResourceKind::kQueuedResource, core::LastSegment(resource.name), resource.name, *run,
                     core::SegmentAfter(resource.name, "locations"), ""});
      // Its slices bill only while it is ACTIVE.
      const auto specs = resource.raw.value("tpu", nlohmann::json::object()).value("nodeSpec", nlohmann::json::array());
      const std::string type = specs.empty() || !specs[0].is_object()
                                   ? ""
                                   : specs[0].value("node", nlohmann::json::object()).value("acceleratorType", "");
      auto slice = SliceOf(type);
      const bool active = resource.state == gcp::tpu::QueuedResourceState::kActive;
      SetChips(out.back(), slice, slice && active ? slice->chips * static_cast<int>(resource.node_ids.size()) : 0,
               resource.labels);
      out.back().capacity =
          resource.raw.contains("spot") ? catalog::CapacityMode::kSpot : catalog::CapacityMode::kOnDemand;
    }
  }
  return {};
}

core::Status ScanBuckets(ProvisionEnv& env, const ScanRequest& request, const Keys& ledgered,
                         std::vector<LeakedResource>& out) {
  gcp::storage::Client client(env.transport, env.endpoints.storage);
  auto buckets = client.ListBuckets(request.project);
  if (!buckets) return core::Fail(buckets.error());
  for (const auto& bucket : *buckets) {
    auto run = RunOf(bucket.labels, request.run_id);
    if (!run || !Listed(request, ledgered, {ResourceKind::kBucket, bucket.name}, bucket.labels)) continue;
    out.push_back({ResourceKind::kBucket, bucket.name, bucket.name, *run, bucket.location, ""});
  }
  return {};
}

// Artifact Registry lists repositories per location (no "-"): the regions of the scan's
// locations. A scan without locations says that it skipped them.
core::Status ScanRepositories(ProvisionEnv& env, const ScanRequest& request, const Keys& ledgered,
                              std::vector<LeakedResource>& out) {
  std::set<std::string> regions;
  for (const auto& location : request.locations) regions.insert(core::RegionOf(location));
  if (regions.empty()) {
    env.reporter.Warn("Artifact Registry repositories are listed per region: add --location REGION to scan them");
    return {};
  }
  gcp::artifactregistry::Client client(env.transport, env.endpoints.artifactregistry);
  for (const auto& region : regions) {
    auto repositories = client.List(request.project, region);
    if (!repositories) return core::Fail(repositories.error());
    for (const auto& repository : *repositories) {
      auto run = RunOf(repository.labels, request.run_id);
      if (!run || !Listed(request, ledgered, {ResourceKind::kRepository, repository.name}, repository.labels)) continue;
      out.push_back({ResourceKind::kRepository, core::LastSegment(repository.name), repository.name, *run, region, ""});
    }
  }
  return {};
}

// Whether a list answer's resource name is of the project scanned: its projects/ segment is the
// project's id, or a number (Google may spell a project by its number; the list was of this
// project, so the number is its own).
bool OfProject(const std::string& name, const std::string& project) {
  const std::string named = core::SegmentAfter(name, "projects");
  return named == project ||
         (!named.empty() && std::all_of(named.begin(), named.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

// The ledger entry a run would have written for what the scan found: what the one cloud delete
// (DeleteCloudEntry, cleanup's) reads.
state::LedgerEntry EntryOf(const LeakedResource& item) {
  state::LedgerEntry entry;
  entry.kind = item.kind;
  entry.name = item.resource;
  entry.state = state::EntryState::kCreated;
  // In the project scanned, whatever the list answer's name said (ScanLeaked left out those of
  // another project).
  const std::string& project = item.project;
  switch (item.kind) {
    case ResourceKind::kCluster:
    case ResourceKind::kNodePool: {
      const std::string& cluster = item.kind == ResourceKind::kCluster ? item.resource : item.cluster;
      entry.details = {{"project", core::SegmentAfter(cluster, "projects")},
                       {"location", core::SegmentAfter(cluster, "locations")},
                       {"cluster", core::SegmentAfter(cluster, "clusters")}};
      if (item.kind == ResourceKind::kNodePool) entry.details["nodepool"] = item.name;
      break;
    }
    case ResourceKind::kTpuVm:
      entry.details = {{"project", project}, {"zone", item.location}, {"node", item.name}};
      break;
    case ResourceKind::kQueuedResource:
      entry.details = {{"project", project}, {"zone", item.location}, {"queued_resource", item.name}};
      break;
    case ResourceKind::kRepository:
      entry.details = {{"project", project}, {"location", item.location}, {"repository", item.name}};
      break;
    default:  // a bucket: its name, and the project scanned (whose Cloud Build bucket is shared)
      entry.name = item.name;
      entry.details = {{"project", item.project}};
      break;
  }
  return entry;
}

// Runs one tier's deletes concurrently, collecting outcomes and failure lines.
void RunTier(ProvisionEnv& env, const std::vector<const LeakedResource*>& tier, std::vector<Outcome>& outcomes,
             std::string& failures, std::optional<core::Error>& first_error) {
  auto results =
      core::FanOut(tier, [&env](const LeakedResource* item) { return DeleteCloudEntry(env, EntryOf(*item)); });
  for (size_t i = 0; i < results.size(); ++i) {
    auto& result = results[i];
    if (result) {
      outcomes.push_back(std::move(*result));
      continue;
    }
    if (!first_error) first_error = result.error();
    failures += (failures.empty() ? "" : "\n") + std::string(state::KindName(tier[i]->kind)) + " " + tier[i]->name +
                ": " + result.error().message;
  }
}

}  // namespace

nlohmann::json ToJson(const LeakedResource& leaked) {
  nlohmann::json json = {{"kind", state::KindName(leaked.kind)},
                         {"name", leaked.name},
                         {"resource", leaked.resource},
                         {"run", leaked.run_id},
                         {"location", leaked.location}};
  if (!leaked.cluster.empty()) json["cluster"] = leaked.cluster;
  if (!leaked.generation.empty()) {
    json["tpu"] = {{"generation", leaked.generation},
                   {"chips", leaked.chips},
                   {"capacity", catalog::CapacityModeName(leaked.capacity)}};
  }
  if (leaked.expires_at > 0) json["expires_at"] = leaked.expires_at;
  if (leaked.kind == ResourceKind::kCluster) json["goes_with"] = leaked.goes_with;
  if (!leaked.kept.empty()) json["kept"] = leaked.kept;
  return json;
}

std::optional<double> PerHour(const LeakedResource& leaked, const Prices* prices) {
  if (prices == nullptr || leaked.generation.empty() || leaked.chips == 0) return std::nullopt;
  auto rate =
      prices->table.PerChipHour(leaked.generation, core::RegionOf(leaked.location), catalog::BilledAs(leaked.capacity));
  if (!rate) return std::nullopt;
  return *rate * leaked.chips;
}

std::string DeleteLeakedCommand(const ScanRequest& request, const std::string& state_dir_flag) {
  std::vector<std::string> argv = {"tputrain", "cleanup", "--scan"};
  if (request.expired) argv.push_back("--expired");
  argv.insert(argv.end(), {"--delete-leaked", "--yes", "--project", request.project});
  // One location, or none (every one): as the scan was asked.
  if (!request.locations.empty()) argv.insert(argv.end(), {"--location", request.locations.front()});
  if (!request.run_id.empty()) argv.insert(argv.end(), {"--run", request.run_id});
  if (!state_dir_flag.empty()) argv.insert(argv.end(), {"--state-dir", state_dir_flag});
  return ray::ShellJoin(argv);
}

core::Result<Ledgered> LedgeredKeys(const state::LedgerStore& store) {
  auto runs = store.ListRuns();
  if (!runs) return core::Fail(runs.error());
  Ledgered ledgered;
  for (const auto& run : *runs) {
    auto ledger = store.Load(run);
    if (!ledger) {
      ledgered.unreadable_runs.push_back(run);
      ledgered.unreadable.push_back("run " + run + ": " + ledger.error().message +
                                    " (its labelled resources were not scanned)");
      continue;
    }
    for (const auto* entry : ledger->Live()) ledgered.keys.emplace_back(entry->kind, entry->name);
  }
  return ledgered;
}

core::Result<std::vector<LeakedResource>> ScanLeaked(ProvisionEnv& env, const ScanRequest& request,
                                                     const Ledgered& ledgered) {
  if (request.project.empty()) return core::Fail(core::Error::Usage("--project: a scan needs the project"));
  Keys keys(ledgered.keys.begin(), ledgered.keys.end());
  std::vector<LeakedResource> leaked;
  if (auto status = ScanClusters(env, request, keys, leaked); !status) return core::Fail(status.error());
  if (auto status = ScanTpuVms(env, request, keys, leaked); !status) return core::Fail(status.error());
  if (auto status = ScanQueuedResources(env, request, keys, leaked); !status) return core::Fail(status.error());
  if (auto status = ScanBuckets(env, request, keys, leaked); !status) return core::Fail(status.error());
  if (auto status = ScanRepositories(env, request, keys, leaked); !status) return core::Fail(status.error());
  // Firewall rules (the IAP rule of tpu-vm create --ray --iap-firewall create) carry no labels,
  // so no scan can tell a run's rule from anyone's: only the ledger knows it, and `cleanup` of
  // that run deletes it. A leaked one is named tputrain-allow-iap-<network>.
  const std::set<std::string> unknown(ledgered.unreadable_runs.begin(), ledgered.unreadable_runs.end());
  std::erase_if(leaked, [&](const LeakedResource& item) { return unknown.contains(item.run_id); });
  std::erase_if(leaked, [&](const LeakedResource& item) {
    const bool named = item.kind == ResourceKind::kTpuVm || item.kind == ResourceKind::kQueuedResource ||
                       item.kind == ResourceKind::kRepository;
    if (!named || OfProject(item.resource, request.project)) return false;
    env.reporter.Warn("left alone: " + std::string(state::KindName(item.kind)) + " " + item.resource +
                      " came back in a list of project " + request.project + " but names another project");
    return true;
  });
  for (auto& item : leaked) item.project = request.project;
  return leaked;
}

core::Result<std::vector<Outcome>> DeleteLeaked(ProvisionEnv& env, const std::vector<LeakedResource>& leaked) {
  // Nothing here is in a ledger, and nothing is to be written to one.
  ProvisionEnv unledgered = env;
  unledgered.ledger = nullptr;
  std::set<std::string> doomed_clusters;
  std::vector<Outcome> outcomes;
  for (const auto& item : leaked) {
    if (item.kind != ResourceKind::kCluster) continue;
    if (item.kept.empty()) {
      doomed_clusters.insert(item.resource);
    } else {
      outcomes.push_back(
          {ResourceKind::kCluster, item.name, item.resource, OutcomeAction::kKeptShared, "", {{"kept", item.kept}}});
    }
  }
  std::string failures;
  std::optional<core::Error> first_error;
  for (ResourceKind kind : {ResourceKind::kNodePool, ResourceKind::kCluster, ResourceKind::kTpuVm,
                            ResourceKind::kQueuedResource, ResourceKind::kBucket, ResourceKind::kRepository}) {
    std::vector<const LeakedResource*> tier;
    for (const auto& item : leaked) {
      if (item.kind != kind || (kind == ResourceKind::kCluster && !item.kept.empty())) continue;
      if (item.kind == ResourceKind::kNodePool && doomed_clusters.contains(item.cluster)) {
        outcomes.push_back({ResourceKind::kNodePool, item.name, item.resource, OutcomeAction::kGoesWithCluster, "",
                            nlohmann::json::object()});
        continue;
      }
      tier.push_back(&item);
    }
    RunTier(unledgered, tier, outcomes, failures, first_error);
  }
  if (first_error) {
    core::Error error = *first_error;
    error.message = failures;
    if (!outcomes.empty()) {
      error.message += "\n(done: ";
      for (size_t i = 0; i < outcomes.size(); ++i) {
        error.message += (i ? ", " : "") + std::string(state::KindName(outcomes[i].kind)) + " " + outcomes[i].name +
                         " " + std::string(OutcomeActionPhrase(outcomes[i].action));
      }
      error.message += ")";
    }
    return core::Fail(error);
  }
  return outcomes;
}

}  // namespace tputrain::workflow
