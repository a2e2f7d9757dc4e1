#pragma once

// What the serve command's files share: its subcommands' set-up.
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "tputrain/workflow/serve_up.h"

namespace tputrain::cli {

// --bucket of serve up, down and convert: the bucket their templates name (BUCKET).
void AddServeBucketFlag(CLI::App& command, std::string& bucket);

// serve up, serve down, serve status; serve list, serve unpublish.
void AddServeUpCommand(CLI::App& serve, Context& context);
void AddServeDownCommand(CLI::App& serve, Context& context);
void AddServeStatusCommand(CLI::App& serve, Context& context);
void AddSaxmlServeCommands(CLI::App& serve, Context& context);

}  // namespace tputrain::cli
