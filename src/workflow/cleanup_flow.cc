// `tputrain cleanup` of recorded runs: the checks and the plans, then the deletes and each run's spend.
#include "tputrain/core/duration.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<CleanupPlanned> PlanCleanup(Root& root, const CleanupRequest& request) {
  if (request.detailed_exitcode && !request.dry_run) {
    return core::Fail(core::Error::Usage("--detailed-exitcode: only with --dry-run"));
  }
  CleanupPlanned planned;
  auto timeout = core::ParseOptionalDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  planned.timeout = *timeout;
  planned.state_dir = request.state_dir;
  auto runs = PlanRuns(root.Ledger(request.state_dir), request.runs, root.env());
  if (!runs) return core::Fail(runs.error());
  planned.runs = std::move(*runs);
  planned.to_delete = DeleteCount(planned.runs.plans);
  return planned;
}

core::Result<CleanedUp> CarryOutCleanup(Root& root, const CleanupPlanned& planned) {
  http::Transport* google = nullptr;
  if (NeedsGoogle(planned.runs.plans)) {
    auto transport = root.Google();
    if (!transport) return core::Fail(transport.error());
    google = *transport;
  }
  state::LedgerStore& store = root.Ledger(planned.state_dir);
  CleanupRunsEnv env{store, root.Provision(google), RecordedReach(root), planned.timeout};
  auto done = CleanupRuns(env, planned.runs.plans);
  if (!done) return core::Fail(done.error());
  CleanedUp cleaned{std::move(*done), {}};
  for (const auto& run : cleaned.runs) {
    auto ledger = store.Load(run.run_id);
    if (!ledger) continue;
    auto spend = SpendOf(*ledger, root.clock().WallNow());
    if (!spend.resources.empty()) cleaned.spends.emplace(run.run_id, std::move(spend));
  }
  return cleaned;
}

nlohmann::json ToJson(const CleanedUp& cleaned) {
  nlohmann::json json = ToJson(cleaned.runs);
  for (auto& run : json["runs"]) {
    auto spend = cleaned.spends.find(run["run"].get<std::string>());
    run["spend"] = spend == cleaned.spends.end() ? nlohmann::json(nullptr) : ToJson(spend->second);
  }
  return json;
}

}  // namespace tputrain::workflow
