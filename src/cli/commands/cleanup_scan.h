#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"
#include "tputrain/core/result.h"

// `tputrain cleanup --scan [--delete-leaked]`: resources carrying the tputrain-run label that no
// local ledger knows. Kept apart from the ledger-driven cleanup, which it shares only flags with.
namespace tputrain::cli {

struct ScanFlags {
  bool scan = false;
  bool delete_leaked = false;
  bool expired = false;  // only what is past its tputrain-expires label, ledgered or not
};

void AddScanFlags(CLI::App* cleanup, ScanFlags& flags);

// `run_id` restricts the scan to that run's label (empty: every run); `state_dir_flag` is the
// --state-dir given (empty: the default directory; repeated in the hint); `yes` is --yes.
core::Result<int> RunScan(Context& context, const ScanFlags& flags, const std::string& run_id,
                          const std::string& state_dir_flag, bool yes);

}  // namespace tputrain::cli
