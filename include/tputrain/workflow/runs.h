#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/run_refresh.h"
#include "tputrain/workflow/spend.h"

// `tputrain runs list|show`: the run ledgers, each with what its TPUs cost so far.
namespace tputrain::workflow {

class Root;

struct RunSummary {
  std::string run_id;
  std::string created_at;
  bool current = false;  // the run a command without --run records into
  size_t resources = 0;
  size_t live = 0;
  RunSpend spend;  // at the root's wall clock; no resources: none priced
};

// Every run of the ledger directory (`state_dir`; empty: the default one). A ledger that cannot
// be read is warned about through the root's reporter and left out, never the end of the list.
core::Result<std::vector<RunSummary>> ListRunSummaries(Root& root, const std::string& state_dir);
// `runs list --format json`: spent and per_hour_now are null for a run with nothing priced.
nlohmann::json ToJson(const std::vector<RunSummary>& runs);

struct RunShowRequest {
  std::string state_dir;
  std::string run_id;    // empty: TPUTRAIN_RUN, else the current run
  bool refresh = false;  // first read the run's paid resources from their APIs (RefreshRun)
};

struct RunShown {
  state::Ledger ledger;  // as it stands after the refresh
  RunSpend spend;
  std::optional<std::vector<RefreshedEntry>> refreshed;  // with refresh only
};

// The run's ledger (a usage error when no run is named and none is current), refreshed first when
// asked (--dry-run: the reads, the ledger left as it is), and its spend at the root's wall clock.
core::Result<RunShown> ShowRun(Root& root, const RunShowRequest& request);
// `runs show --format json`: the ledger, `spend` (null when nothing is priced) and, with
// --refresh, what the refresh found.
nlohmann::json ToJson(const RunShown& shown);

}  // namespace tputrain::workflow
