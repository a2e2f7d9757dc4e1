// tputrain tpu-vm exec NAME --worker all -- CMD: the seed's `tpu-vm ssh --worker=all --command`
// as a Ray job on the node's own Ray (tpu-vm create --ray), reached through IAP: no ssh.
#include "commands/commands.h"
#include "flags/ray_flags.h"
#include "output/job_output.h"
#include "output/output.h"
#include "tputrain/workflow/tpu_vm_remote.h"

namespace tputrain::cli {
namespace {

// --dry-run: what exec would do, said without a credential, a call or a tunnel.
int PrintDryRun(const workflow::TpuVmExecCommand& options, const workflow::TpuVmExecPlan& exec, Context& context) {
  PrintResult(context, workflow::DryRunJson(options, exec), [&](std::ostream& out) {
    out << "Would run on TPU VM " << exec.node.node << " (" << exec.node.zone << "), worker(s) " << options.workers
        << ", as a Ray job reached through " << workflow::ViaWords(options.reach) << " (nothing sent):\n  "
        << exec.command_line << "\n";
  });
  return core::kExitOk;
}

core::Result<int> RunExec(const workflow::TpuVmExecCommand& options, Context& context) {
  auto plan = workflow::PlanTpuVmExec(context.stack(), options);
  if (!plan) return core::Fail(plan.error());
  if (context.global.dry_run) return PrintDryRun(options, *plan, context);
  auto job = workflow::RunTpuVmExec(context.stack(), options, LogStream(context));
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

}  // namespace

void SetupTpuVmExecCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<workflow::TpuVmExecCommand>();
  auto* exec = tpu_vm.add_subcommand(
      "exec", "Run a command on the hosts of a tpu-vm create --ray node, as a Ray job (no ssh); lines by worker");
  exec->add_option("name", options->name, "TPU VM name")->required();
  exec->add_option("--worker", options->workers, "all (default), or worker numbers: 0,2");
  AddTpuVmReachFlags(*exec, options->reach);
  exec->add_option("command", options->command, "The command, after --")->required();
  exec->footer(
      "Exit codes: 0 when the command succeeded on every chosen host, 1 otherwise.\n"
      "Example:\n  tputrain tpu-vm exec ray-v6e --zone us-east5-b --worker all -- python3 -c 'import jax; "
      "print(jax.device_count())'");
  exec->callback([options, &context] { context.outcome = RunExec(*options, context); });
}

}  // namespace tputrain::cli
