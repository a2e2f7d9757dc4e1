#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/spend.h"

// `tputrain cleanup` of one run or of all of them: the plans read from the run ledgers first
// (what --dry-run shows and the confirmation counts), then carried out run after run.
namespace tputrain::workflow {

struct CleanupRunsRequest {
  std::string run_id;  // empty: TPUTRAIN_RUN, else the current run
  bool all = false;    // every run in the store (exclusive with run_id)
  bool force = false;  // also adopted resources
};

// The plans of the runs asked for. A run named with --run must have a ledger (a usage error
// otherwise: a typo must not pass a leak check); the current run or TPUTRAIN_RUN whose ledger
// was never written (killed before its first record) has nothing to clean up and is left out.
struct RunsToClean {
  std::vector<CleanupPlan> plans;
  // With --all: ledgers that could not be read ("run ID: why"), left alone so that one corrupt
  // file does not keep the healthy runs' resources billing. The command then fails (Unreadable).
  std::vector<std::string> unreadable;
};
core::Result<RunsToClean> PlanRuns(state::LedgerStore& store, const CleanupRunsRequest& request, const core::Env& env);

// The failure that names the ledgers PlanRuns left alone (kFailedPrecondition: exit 1).
core::Error Unreadable(const std::vector<std::string>& unreadable);

size_t DeleteCount(const std::vector<CleanupPlan>& plans);

// Whether any entry of `plans` is deleted through Google's APIs: a run of Kubernetes objects and
// Ray jobs cleans up without Google credentials.
bool NeedsGoogle(const std::vector<CleanupPlan>& plans);

struct CleanupRunsEnv {
  state::LedgerStore& store;
  // The environment of the cloud deletes (its ledger and run are set per run).
  ProvisionEnv provision;
  CleanupReach reach;
  std::optional<std::chrono::milliseconds> timeout;
};

struct RunCleaned {
  std::string run_id;
  std::vector<Outcome> outcomes;
  std::vector<PlannedDelete> kept;
};

// Carries out `plans` in order. A run whose cleanup finished with nothing kept stops being the
// current run. The first run that fails ends it: the error says what is left and how to finish
// (running the same cleanup again), and a precondition the ledger recorded (a kubeconfig since
// removed) is kFailedPrecondition, not a usage error.
core::Result<std::vector<RunCleaned>> CleanupRuns(CleanupRunsEnv& env, const std::vector<CleanupPlan>& plans);

nlohmann::json ToJson(const std::vector<CleanupPlan>& plans);
nlohmann::json ToJson(const std::vector<RunCleaned>& runs);

class Root;

// `tputrain cleanup` (not --scan) as the command gives it.
struct CleanupRequest {
  CleanupRunsRequest runs;
  std::string state_dir;           // the ledgers' directory (empty: the default one)
  std::string timeout;             // --timeout, core::ParseDuration's grammar; empty: no limit
  bool detailed_exitcode = false;  // only with dry_run
  bool dry_run = false;
};

struct CleanupPlanned {
  RunsToClean runs;
  std::string state_dir;
  std::optional<std::chrono::milliseconds> timeout;
  size_t to_delete = 0;  // what the confirmation counts
};
// The request checked before anything is read (--detailed-exitcode needs --dry-run, a valid
// --timeout), then PlanRuns over the ledgers.
core::Result<CleanupPlanned> PlanCleanup(Root& root, const CleanupRequest& request);

struct CleanedUp {
  std::vector<RunCleaned> runs;
  std::map<std::string, RunSpend> spends;  // each run's TPU spend, from its ledger as left; priced ones only
};
// Carries the plans out (CleanupRuns, Google's APIs reached only when a plan needs them).
core::Result<CleanedUp> CarryOutCleanup(Root& root, const CleanupPlanned& planned);
// `cleanup --format json`: ToJson of the runs, each with its `spend` (null when none is priced).
nlohmann::json ToJson(const CleanedUp& cleaned);

}  // namespace tputrain::workflow
