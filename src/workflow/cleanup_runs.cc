#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/core/text.h"

namespace tputrain::workflow {
namespace {

// What the ledger recorded is not the user's input: a kubeconfig that is no longer readable is
// a failed precondition of this cleanup (exit 1), not a usage error.
core::Error FromLedger(core::Error error) {
  if (core::IsUsageError(error)) error.kind = core::ErrorKind::kFailedPrecondition;
  return error;
}

}  // namespace

core::Result<RunsToClean> PlanRuns(state::LedgerStore& store, const CleanupRunsRequest& request, const core::Env& env) {
  if (request.all && !request.run_id.empty()) {
    return core::Fail(core::Error::Usage("--all and --run are exclusive: pass one"));
  }
  std::vector<std::string> runs;
  if (request.all) {
    auto listed = store.ListRuns();
    if (!listed) return core::Fail(listed.error());
    runs = *listed;
  } else {
    auto run = store.ResolveRun(request.run_id, env, /*create=*/false);
    if (!run) return core::Fail(run.error());
    if (!run->empty()) runs.push_back(*run);
  }
  RunsToClean found;
  for (const auto& run : runs) {
    auto ledger = store.Load(run);
    if (!ledger && ledger.error().kind == core::ErrorKind::kNotFound && !request.run_id.empty()) {
      // Named on the command line: a typo must not pass a CI leak check as "nothing to delete".
      return core::Fail(
          core::Error::Usage("--run: no run '" + request.run_id + "' in " + store.dir() + " (tputrain runs list)"));
    }
    if (!ledger && ledger.error().kind == core::ErrorKind::kNotFound) continue;
    if (!ledger && request.all) {
      found.unreadable.push_back("run " + run + ": " + ledger.error().message);
      continue;
    }
    if (!ledger) return core::Fail(ledger.error());
    found.plans.push_back(PlanCleanup(*ledger, request.force));
  }
  return found;
}

core::Error Unreadable(const std::vector<std::string>& unreadable) {
  std::string message = core::Counted(static_cast<long long>(unreadable.size()), "run ledger") +
                        (unreadable.size() == 1 ? " could not be read and was" : " could not be read and were") +
                        " left alone:";
  for (const auto& why : unreadable) message += "\n  " + why;
  return core::Error::Make(core::ErrorKind::kFailedPrecondition, message);
}

size_t DeleteCount(const std::vector<CleanupPlan>& plans) {
  size_t count = 0;
  for (const auto& plan : plans) count += plan.deletes.size();
  return count;
}

bool NeedsGoogle(const std::vector<CleanupPlan>& plans) {
  for (const auto& plan : plans) {
    for (const auto& item : plan.deletes) {
      const ResourceKind kind = item.entry.kind;
      if (kind != ResourceKind::kK8sObject && kind != ResourceKind::kRayJob && kind != ResourceKind::kServedModel) {
        return true;
      }
    }
  }
  return false;
}

core::Result<std::vector<RunCleaned>> CleanupRuns(CleanupRunsEnv& env, const std::vector<CleanupPlan>& plans) {
  std::vector<RunCleaned> done;
  for (const auto& plan : plans) {
    ProvisionEnv run_env = env.provision;
    run_env.ledger = &env.store;
    run_env.run_id = plan.run_id;
    run_env.poll.timeout = env.timeout;
    auto outcomes = RunCleanup(run_env, plan, env.reach);
    if (!outcomes) {
      core::Error error = FromLedger(outcomes.error());
      error.message += "\n  what is left is in the run ledger (tputrain runs show --run " + plan.run_id +
                       "); run 'tputrain cleanup --run " + plan.run_id + " --yes' again to finish";
      return core::Fail(error);
    }
    if (plan.kept.empty()) (void)env.store.ClearCurrentRun(plan.run_id);
    done.push_back({plan.run_id, std::move(*outcomes), plan.kept});
  }
  return done;
}

nlohmann::json ToJson(const std::vector<CleanupPlan>& plans) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& plan : plans) runs.push_back(ToJson(plan));
  return {{"runs", runs}};
}

nlohmann::json ToJson(const std::vector<RunCleaned>& done) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : done) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& item : run.kept) kept.push_back({{"kind", item.entry.KindName()}, {"name", item.entry.name}});
    runs.push_back({{"run", run.run_id}, {"resources", ToJson(run.outcomes)}, {"kept", kept}});
  }
  return {{"runs", runs}};
}

}  // namespace tputrain::workflow
