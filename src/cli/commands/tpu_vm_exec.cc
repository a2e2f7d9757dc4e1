// tputrain tpu-vm exec NAME --worker all -- CMD: the seed's `tpu-vm ssh --worker=all --command`
// as a Ray job on the node's own Ray (tpu-vm create --ray), reached through IAP: no ssh.
#include "commands/commands.h"
#include "flags/ray_flags.h"
#include "output/job_output.h"
#include "output/output.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/tpu_vm_remote.h"

namespace tputrain::cli {
namespace {

// --dry-run: what exec would do, said without a credential, a call or a tunnel. The hosts'
// addresses (and how many "all" is) come from the node, so the job is described, not built.
int PrintDryRun(const workflow::TpuVmExecCommand& options, const workflow::TpuVmExecPlan& exec, Context& context) {
  const auto& node = exec.node;
  const std::string via = options.reach.via == "ssh" ? "ssh -L" : "IAP";
  const nlohmann::json plan = {
      {"dry_run", true},
      {"node", node.Name()},
      {"workers", options.workers == "all" ? nlohmann::json("all") : nlohmann::json(exec.workers)},
      {"via", options.reach.via},
      {"command", options.command},
      {"steps",
       {"GET " + node.Name() + ": its hosts' addresses and its Ray token",
        "open a tunnel (" + via + ") to worker 0, port " + std::to_string(workflow::kRayDashboardPort),
        "POST /api/jobs/: a Ray job running the command once on each chosen host", "follow the job's log to its end"}}};
  PrintResult(context, plan, [&](std::ostream& out) {
    out << "Would run on TPU VM " << node.node << " (" << node.zone << "), worker(s) " << options.workers
        << ", as a Ray job reached through " << via << " (nothing sent):\n  " << exec.command_line << "\n";
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
