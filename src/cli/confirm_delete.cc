#include "confirm_delete.h"

#include <iostream>

#include "output/output.h"

namespace tputrain::cli {

void AddYesFlag(CLI::App* command, bool& yes) {
  command->add_flag("-y,--yes", yes, "Delete without asking (needed without a terminal; so is --quiet)");
}

core::Result<bool> ConfirmDelete(Context& context, bool yes, const std::string& command, const std::string& question) {
  if (yes || context.global.quiet || context.global.dry_run) return true;
  if (!context.stdin_is_tty) {
    return core::Fail(core::Error::Usage(command + ": there is no terminal to confirm on; add --yes (or --quiet) to "
                                                   "delete without asking"));
  }
  context.err << question << " [y/N] " << std::flush;
  std::string answer;
  std::getline(context.in, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

core::Result<int> NothingDeleted(Context& context) {
  // As gcloud's "Aborted by user": a script that asked for a delete must not read a decline as done.
  SayOnStderr(context, "Aborted by user: nothing deleted.");
  return core::kExitFailed;
}

}  // namespace tputrain::cli
