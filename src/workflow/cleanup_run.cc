// Carrying out a cleanup plan: tier after tier, each tier in parallel.
#include <future>
#include <map>
#include <optional>
#include <set>

#include "tputrain/core/fan_out.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow {
namespace {

using Planned = std::vector<const PlannedDelete*>;

struct Tally {
  std::vector<Outcome> outcomes;
  std::vector<std::string> failures;
  std::optional<core::Error> first_error;

  void Add(core::Result<Outcome> result, const state::LedgerEntry& entry) {
    if (result) {
      outcomes.push_back(std::move(*result));
      return;
    }
    Fail(result.error(), entry.KindName() + " " + entry.name);
  }
  void Fail(const core::Error& error, const std::string& what) {
    if (!first_error) first_error = error;
    failures.push_back(what + ": " + error.message);
  }
};

bool Cancelled(const ProvisionEnv& env) { return env.cancel != nullptr && env.cancel->cancelled(); }

// The TPU VM a job's head runs on is deleted in this cleanup: by itself, or with its queued
// resource (multislice: the head is on slice 0, the job recorded under any slice or the name).
bool TpuVmDoomed(const RayJobTarget& target, const CleanupPlan& plan) {
  const auto& node = target.tpu_vm;
  for (const auto& planned : plan.deletes) {
    const auto& details = planned.entry.details;
    if (details.value("project", "") != node.project || details.value("zone", "") != node.zone) continue;
    if (planned.entry.kind == ResourceKind::kTpuVm && details.value("node", "") == node.node) return true;
    if (planned.entry.kind != ResourceKind::kQueuedResource) continue;
    if (details.value("queued_resource", "") == node.node) return true;
    for (const auto& id : details.value("nodes", nlohmann::json::array())) {
      if (id == node.node) return true;
    }
  }
  return false;
}

// A ray-job whose head goes in this cleanup: its RayCluster (same cluster, namespace and name)
// or its TPU VM.
bool HeadDoomed(const state::LedgerEntry& job, const CleanupPlan& plan) {
  auto target = RayJobTargetOf(job);
  if (target && target->OnTpuVm()) return TpuVmDoomed(*target, plan);
  if (!target || !target->OnCluster()) return false;
  for (const auto& planned : plan.deletes) {
    const auto& object = planned.entry.details;
    if (planned.entry.kind != ResourceKind::kK8sObject || object.value("kind", "") != "RayCluster" ||
        object.value("name", "") != target->raycluster || object.value("namespace", "") != target->ns) {
      continue;
    }
    if (auto access = AccessOf(planned.entry); access && access->Id() == target->access.Id()) return true;
  }
  return false;
}

// How k8s-object entries are grouped by cluster; an unreadable access record is its own group,
// whose delete then fails with the record's error.
std::string AccessKey(const state::LedgerEntry& entry) {
  auto access = AccessOf(entry);
  return access ? access->Id() : "unreadable:" + entry.name;
}

void RunRayJobs(ProvisionEnv& env, const CleanupPlan& plan, const Planned& tier, const CleanupReach& reach,
                Tally& tally) {
  auto results = core::FanOut(tier, [&env, &plan, &reach](const PlannedDelete* item) {
    return StopRayJobEntry(env, item->entry, reach, HeadDoomed(item->entry, plan));
  });
  for (size_t i = 0; i < results.size(); ++i) tally.Add(std::move(results[i]), tier[i]->entry);
}

// The GKE cluster of this run that a Kubernetes access record points at, if any: by name, or by
// the context name get-credentials gives it (gke_PROJECT_LOCATION_CLUSTER).
std::string HostingCluster(const state::AccessRecord& access, const CleanupPlan& plan) {
  for (const auto& planned : plan.deletes) {
    if (planned.entry.kind != ResourceKind::kCluster) continue;
    const auto& details = planned.entry.details;
    gcp::container::ClusterRef ref{details.value("project", ""), details.value("location", ""),
                                   details.value("cluster", "")};
    std::string context = ref.KubeContextName();
    if (access.gke_cluster == planned.entry.name || (!access.IsGke() && access.context == context)) {
      return planned.entry.name;
    }
  }
  return "";
}

// Models unpublished before the sax-http that serves them is deleted. A cluster this cleanup
// deletes takes its cell with it: an unreachable API server does not stop the cleanup.
void RunServedModels(ProvisionEnv& env, const CleanupPlan& plan, const Planned& tier, const CleanupReach& reach,
                     Tally& tally) {
  auto results = core::FanOut(
      tier, [&env, &reach](const PlannedDelete* item) { return UnpublishServedModelEntry(env, item->entry, reach); });
  for (size_t i = 0; i < results.size(); ++i) {
    auto& result = results[i];
    const auto& entry = tier[i]->entry;
    auto access = AccessOf(entry);
    std::string hosting = !result && access ? HostingCluster(*access, plan) : "";
    if (hosting.empty()) {
      tally.Add(std::move(result), entry);
      continue;
    }
    env.reporter.Warn(result.error().message + "; it goes with cluster " + hosting);
    if (env.ledger != nullptr) {
      (void)env.ledger->RecordState(env.run_id, entry.kind, entry.name, state::EntryState::kDeleted);
    }
    tally.outcomes.push_back({entry.kind, entry.details.value("model", entry.name), entry.name,
                              OutcomeAction::kGoesWithCluster, "", entry.details});
  }
}

// Entries deleted by deleting the cluster they live in, with that cluster's ledger key.
using GoesWithCluster = std::vector<std::pair<const PlannedDelete*, std::string>>;

void RunK8sObjects(ProvisionEnv& env, const CleanupPlan& plan, const Planned& tier, const CleanupReach& reach,
                   Tally& tally, GoesWithCluster& with_cluster) {
  std::map<std::string, std::vector<const PlannedDelete*>> by_cluster;
  for (const auto* item : tier) {
    by_cluster[AccessKey(item->entry)].push_back(item);
  }
  std::vector<const std::vector<const PlannedDelete*>*> groups;
  for (const auto& [cluster, items] : by_cluster) groups.push_back(&items);
  auto results = core::FanOut(groups, [&env, &reach](const std::vector<const PlannedDelete*>* items) {
    std::vector<state::LedgerEntry> entries;
    for (const auto* item : *items) entries.push_back(item->entry);
    return DeleteK8sEntries(env, entries, reach);
  });
  for (size_t group = 0; group < groups.size(); ++group) {
    const auto* items = groups[group];
    auto& result = results[group];
    if (result) {
      tally.outcomes.insert(tally.outcomes.end(), result->begin(), result->end());
      continue;
    }
    // A cluster this cleanup deletes anyway takes its objects with it: an unreachable API
    // server or a lost kubeconfig must not stop the cleanup.
    auto access = AccessOf(items->front()->entry);
    std::string hosting = access ? HostingCluster(*access, plan) : "";
    if (hosting.empty()) {
      tally.Fail(result.error(), std::string(state::KindName(ResourceKind::kK8sObject)));
      continue;
    }
    env.reporter.Warn(result.error().message + "; they go with cluster " + hosting);
    for (const auto* item : *items) with_cluster.emplace_back(item, hosting);
  }
}

void RunCloud(ProvisionEnv& env, const Planned& tier, Tally& tally) {
  auto results = core::FanOut(
      tier, [&env](const PlannedDelete* item) { return DeleteCloudEntry(env, item->entry); }, env.dry_run != nullptr);
  for (size_t i = 0; i < results.size(); ++i) tally.Add(std::move(results[i]), tier[i]->entry);
}

// What went with its cluster, recorded once the cluster's delete is known to be done.
void RecordGoneWithCluster(ProvisionEnv& env, const GoesWithCluster& with_cluster, Tally& tally) {
  std::set<std::string> clusters_gone;
  for (const auto& outcome : tally.outcomes) {
    if (outcome.kind == ResourceKind::kCluster &&
        (outcome.action == OutcomeAction::kDeleted || outcome.action == OutcomeAction::kAlreadyGone)) {
      clusters_gone.insert(outcome.resource);
    }
  }
  for (const auto& [item, cluster] : with_cluster) {
    if (!clusters_gone.contains(cluster)) continue;
    const auto& entry = item->entry;
    if (env.ledger != nullptr) {
      auto status = env.ledger->RecordState(env.run_id, entry.kind, entry.name, state::EntryState::kDeleted);
      if (!status) env.reporter.Warn("run ledger: " + status.error().message);
    }
    std::string name = entry.kind == ResourceKind::kNodePool
                           ? entry.details.value("nodepool", entry.name)
                           : entry.details.value("kind", "") + " " + entry.details.value("name", "");
    tally.outcomes.push_back({entry.kind, name, entry.name, OutcomeAction::kWentWithCluster, "", entry.details});
  }
}

}  // namespace

core::Result<std::vector<Outcome>> RunCleanup(ProvisionEnv& env, const CleanupPlan& plan, const CleanupReach& reach) {
  std::map<int, Planned> tiers;
  GoesWithCluster with_cluster;
  for (const auto& item : plan.deletes) {
    if (item.step == CleanupAction::kGoesWithCluster) {
      if (env.dry_run == nullptr) with_cluster.emplace_back(&item, PoolClusterKey(item.entry));
      continue;
    }
    tiers[CleanupTier(item.entry.kind)].push_back(&item);
  }
  Tally tally;
  for (const auto& [tier, items] : tiers) {
    if (Cancelled(env)) break;
    const ResourceKind kind = items.front()->entry.kind;  // the Ray, Saxml and Kubernetes tiers hold one kind each
    if (kind == ResourceKind::kRayJob) {
      RunRayJobs(env, plan, items, reach, tally);
    } else if (kind == ResourceKind::kServedModel) {
      RunServedModels(env, plan, items, reach, tally);
    } else if (kind == ResourceKind::kK8sObject) {
      RunK8sObjects(env, plan, items, reach, tally, with_cluster);
    } else {
      RunCloud(env, items, tally);
    }
    if (tier == CleanupTier(ResourceKind::kCluster)) RecordGoneWithCluster(env, with_cluster, tally);
  }
  if (Cancelled(env)) {
    // Whatever else failed, the user stopped it: exit 130, and a re-run resumes.
    if (!tally.first_error) tally.failures.push_back("interrupted");
    tally.first_error = core::Error::Cancelled();
  }
  if (!tally.first_error) return tally.outcomes;
  core::Error error = *tally.first_error;
  error.message.clear();
  for (const auto& line : tally.failures) error.message += (error.message.empty() ? "" : "\n") + line;
  if (!tally.outcomes.empty()) {
    error.message += "\n(done: ";
    for (size_t i = 0; i < tally.outcomes.size(); ++i) {
      const auto& outcome = tally.outcomes[i];
      error.message += (i ? ", " : "") + std::string(state::KindName(outcome.kind)) + " " + outcome.name + " " +
                       std::string(OutcomeActionPhrase(outcome.action));
    }
    error.message += ")";
  }
  return core::Fail(error);
}

}  // namespace tputrain::workflow
