#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"

// One Setup function per top-level command; each adds its subcommand to `root` and stores the
// command's outcome in `context` when it runs. Only commands that work are registered.
namespace tputrain::cli {

void SetupAuthCommand(CLI::App& root, Context& context);
void SetupBucketCommand(CLI::App& root, Context& context);
void SetupCleanupCommand(CLI::App& root, Context& context);
void SetupClusterCommands(CLI::App& root, Context& context);  // cluster, nodepool
void SetupNodePoolCommand(CLI::App& root, Context& context);
void SetupConfigCommand(CLI::App& root, Context& context);
void SetupEmulatorCommand(CLI::App& root, Context& context);
void SetupIamCommand(CLI::App& root, Context& context);
void SetupJobCommand(CLI::App& root, Context& context);
void SetupK8sCommands(CLI::App& root, Context& context);  // apply, delete, wait
void SetupWaitCommand(CLI::App& root, Context& context);
void SetupLogsCommand(CLI::App& root, Context& context);  // logs
void SetupModelsCommand(CLI::App& root, Context& context);
void SetupOperatorsCommand(CLI::App& root, Context& context);
void SetupPlanCommand(CLI::App& root, Context& context);
void SetupQueueCommand(CLI::App& root, Context& context);
void SetupPricesCommand(CLI::App& root, Context& context);
void SetupRenderCommand(CLI::App& root, Context& context);
void SetupRunsCommand(CLI::App& root, Context& context);
void SetupSubmitCommand(CLI::App& root, Context& context);
void SetupUpCommand(CLI::App& root, Context& context);  // up, status
void SetupDownCommand(CLI::App& root, Context& context);
void SetupTpuVmCommand(CLI::App& root, Context& context);
void SetupTpuVmCreateCommand(CLI::App& tpu_vm, Context& context);  // tpu-vm create
void SetupTpuVmTunnelCommand(CLI::App& tpu_vm, Context& context);  // tpu-vm tunnel
void SetupTpuVmExecCommand(CLI::App& tpu_vm, Context& context);    // tpu-vm exec
void SetupCompletionCommand(CLI::App& root, Context& context);     // completion, version
void SetupServicesCommand(CLI::App& root, Context& context);
void SetupRegistryCommand(CLI::App& root, Context& context);
void SetupImageCommand(CLI::App& root, Context& context);
void SetupServeCommand(CLI::App& root, Context& context);
void AddServeConvertCommand(CLI::App& serve, Context& context);   // serve convert
void AddServeGenerateCommand(CLI::App& serve, Context& context);  // serve generate

// `tputrain __complete CURRENT WORDS...` (what the completion scripts call) and `tputrain __man`
// (the man page, for the build): answered from the finished command tree, never parsed by it.
int RunHiddenCommand(const CLI::App& root, int argc, const char* const* argv, Context& context);

}  // namespace tputrain::cli
