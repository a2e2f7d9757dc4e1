// What `cleanup` will delete, in which order, before anything is sent.
#include <algorithm>
#include <set>

#include "tputrain/workflow/cleanup.h"

namespace tputrain::workflow {
namespace {

PlannedDelete Planned(const state::LedgerEntry& entry, CleanupAction step) { return {entry, step}; }

CleanupAction ActionFor(const state::LedgerEntry& entry) {
  bool pending = (entry.state == state::EntryState::kCreating || entry.state == state::EntryState::kDeleting) &&
                 !entry.operation.empty();
  return pending ? CleanupAction::kWaitThenDelete : CleanupAction::kDelete;
}

}  // namespace

std::string CleanupActionPhrase(CleanupAction action, std::string_view operation) {
  switch (action) {
    case CleanupAction::kDelete:
      return "delete";
    case CleanupAction::kWaitThenDelete:
      return "wait for " + std::string(operation) + ", then delete";
    case CleanupAction::kGoesWithCluster:
      return "goes with its cluster";
    case CleanupAction::kKeep:
      return "kept (adopted; --force deletes it)";
    case CleanupAction::kKeepShared:
      return "kept (shared: it held objects this run did not upload; --force deletes it if empty)";
  }
  return "delete";
}

std::string PoolClusterKey(const state::LedgerEntry& pool) {
  const auto& details = pool.details;
  if (!details.is_object()) return "";
  return "projects/" + details.value("project", "") + "/locations/" + details.value("location", "") + "/clusters/" +
         details.value("cluster", "");
}

int CleanupTier(ResourceKind kind) {
  int last = 0;
  for (const auto& [known, tier] : kCleanupTiers) {
    if (known == kind) return tier;
    last = std::max(last, tier);
  }
  return last + 1;
}

CleanupPlan PlanCleanup(const state::Ledger& ledger, bool force) {
  CleanupPlan plan;
  plan.run_id = ledger.run_id;
  std::vector<const state::LedgerEntry*> live = ledger.Live();
  std::set<std::string> doomed_clusters;
  for (const auto* entry : live) {
    if (entry->kind == ResourceKind::kCluster && (entry->owned || force)) doomed_clusters.insert(entry->name);
  }
  // Later entries depend on earlier ones more often than the reverse: delete the newest first.
  std::reverse(live.begin(), live.end());
  std::stable_sort(live.begin(), live.end(), [](const state::LedgerEntry* a, const state::LedgerEntry* b) {
    return CleanupTier(a->kind) < CleanupTier(b->kind);
  });
  for (const auto* entry : live) {
    if (!entry->owned && !force) {
      const auto shared_it = entry->details.is_object() ? entry->details.find("shared") : entry->details.end();
      const bool shared = shared_it != entry->details.end() && *shared_it == true;
      plan.kept.push_back(Planned(*entry, shared ? CleanupAction::kKeepShared : CleanupAction::kKeep));
      continue;
    }
    if (entry->kind == ResourceKind::kNodePool && doomed_clusters.contains(PoolClusterKey(*entry))) {
      plan.deletes.push_back(Planned(*entry, CleanupAction::kGoesWithCluster));
      continue;
    }
    plan.deletes.push_back(Planned(*entry, ActionFor(*entry)));
  }
  return plan;
}

nlohmann::json ToJson(const CleanupPlan& plan) {
  auto items = [](const std::vector<PlannedDelete>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : list) {
      out.push_back({{"kind", item.entry.KindName()},
                     {"name", item.entry.name},
                     {"state", state::EntryStateName(item.entry.state)},
                     {"action", item.Phrase()}});
    }
    return out;
  };
  return {{"run", plan.run_id}, {"delete", items(plan.deletes)}, {"kept", items(plan.kept)}};
}

}  // namespace tputrain::workflow
