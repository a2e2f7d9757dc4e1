#include "tputrain/workflow/runs.h"

#include "tputrain/workflow/root.h"

namespace tputrain::workflow {
namespace {

nlohmann::json ToJson(const RefreshedEntry& entry) {
  return {{"kind", state::KindName(entry.kind)},
          {"name", entry.name},
          {"observed", entry.observed},
          {"before", state::EntryStateName(entry.before)},
          {"after", state::EntryStateName(entry.after)}};
}

}  // namespace

core::Result<std::vector<RunSummary>> ListRunSummaries(Root& root, const std::string& state_dir) {
  state::LedgerStore& store = root.Ledger(state_dir);
  auto runs = store.ListRuns();
  if (!runs) return core::Fail(runs.error());
  auto current = store.CurrentRun();
  std::vector<RunSummary> summaries;
  for (const auto& run_id : *runs) {
    auto ledger = store.Load(run_id);
    if (!ledger) {
      root.runtime().reporter.Warn(ledger.error().message);
      continue;
    }
    summaries.push_back({run_id, ledger->created_at, current && *current == run_id, ledger->entries.size(),
                         ledger->Live().size(), SpendOf(*ledger, root.clock().WallNow())});
  }
  return summaries;
}

nlohmann::json ToJson(const std::vector<RunSummary>& runs) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& run : runs) {
    const bool priced = !run.spend.resources.empty();
    json.push_back({{"run_id", run.run_id},
                    {"created_at", run.created_at},
                    {"current", run.current},
                    {"resources", run.resources},
                    {"live", run.live},
                    {"spent", priced ? nlohmann::json(run.spend.spent) : nlohmann::json(nullptr)},
                    {"per_hour_now", priced ? nlohmann::json(run.spend.per_hour_now) : nlohmann::json(nullptr)}});
  }
  return json;
}

core::Result<RunShown> ShowRun(Root& root, const RunShowRequest& request) {
  state::LedgerStore& store = root.Ledger(request.state_dir);
  auto run_id = store.ResolveRun(request.run_id, root.env(), false);
  if (!run_id) return core::Fail(run_id.error());
  if (run_id->empty())
    return core::Fail(core::Error::Usage("no current run: pass --run ID (see 'tputrain runs list')"));
  std::optional<std::vector<RefreshedEntry>> refreshed;
  if (request.refresh) {
    auto entries = RefreshRun(root, store, *run_id);
    if (!entries) return core::Fail(entries.error());
    refreshed = std::move(*entries);
  }
  auto ledger = store.Load(*run_id);
  if (!ledger) return core::Fail(ledger.error());
  auto spend = SpendOf(*ledger, root.clock().WallNow());
  return RunShown{std::move(*ledger), std::move(spend), std::move(refreshed)};
}

nlohmann::json ToJson(const RunShown& shown) {
  nlohmann::json json = state::ToJson(shown.ledger);
  json["spend"] = shown.spend.resources.empty() ? nlohmann::json(nullptr) : ToJson(shown.spend);
  if (shown.refreshed) {
    json["refreshed"] = nlohmann::json::array();
    for (const auto& entry : *shown.refreshed) json["refreshed"].push_back(ToJson(entry));
  }
  return json;
}

}  // namespace tputrain::workflow
