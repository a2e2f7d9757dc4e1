#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"
#include "tputrain/core/result.h"

// Deletes ask first, as gcloud's do, unless told --yes/--quiet: the question on the terminal and
// its flag.
namespace tputrain::cli {

// -y/--yes: delete without asking.
void AddYesFlag(CLI::App* command, bool& yes);

// gcloud refuses an unattended delete; so does tputrain, unless told --yes/--quiet (or it is a
// --dry-run). Without a terminal that is a usage error naming `command`; on one, `question` is
// asked, and false means the user said no.
core::Result<bool> ConfirmDelete(Context& context, bool yes, const std::string& command, const std::string& question);
// What a declined delete prints and returns (exit 1, as gcloud's "Aborted by user").
core::Result<int> NothingDeleted(Context& context);

}  // namespace tputrain::cli
