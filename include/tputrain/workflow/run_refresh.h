#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/root.h"

// `runs show --refresh`: what happened to a run's paid resources outside tputrain, read from
// their APIs and written to the ledger. Google preempts a Spot TPU VM (PREEMPTED; its queued
// resource SUSPENDED), a pool falls into ERROR, someone deletes a resource by hand: the ledger
// then says so, the spend stops at that moment and cleanup still deletes what exists.
namespace tputrain::workflow {

struct RefreshedEntry {
  state::ResourceKind kind = state::ResourceKind::kUnknown;
  std::string name;
  state::EntryState before = state::EntryState::kCreated;
  state::EntryState after = state::EntryState::kCreated;
  std::string observed;  // the API's word: READY, PREEMPTED, SUSPENDED, ERROR, RUNNING, NOT_FOUND
};

// Reads each settled (created, failed or preempted) TPU VM, queued resource and node pool of
// `run_id` and records the state it is found in; pending entries are cleanup's to settle. The
// first read that fails (other than NOT_FOUND) ends the refresh with its error; what was read
// before stays recorded. `record` false (--dry-run): the same reads and answer, nothing written.
core::Result<std::vector<RefreshedEntry>> RefreshRun(http::Transport& transport, const ApiEndpoints& endpoints,
                                                     state::LedgerStore& ledger, const std::string& run_id,
                                                     bool record = true);
// The same through the root's Google APIs; under --dry-run nothing is written.
core::Result<std::vector<RefreshedEntry>> RefreshRun(Root& root, state::LedgerStore& ledger, const std::string& run_id);

}  // namespace tputrain::workflow
