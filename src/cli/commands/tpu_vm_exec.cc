// tputrain tpu-vm exec NAME --worker all -- CMD: the seed's `tpu-vm ssh --worker=all --command`
// as a Ray job on the node's own Ray (tpu-vm create --ray), reached through IAP: no ssh.
#include "tputrain/workflow/tpu_vm_exec.h"
#include "commands/commands.h"
#include "commands/job_output.h"
#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/cli/output.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/iap_firewall.h"

namespace tputrain::cli {
namespace {

struct ExecOptions {
  std::string name;
  std::string workers = "all";
  std::vector<std::string> command;
  TpuVmReach reach;
};

// --dry-run: what exec would do, said without a credential, a call or a tunnel. The hosts'
// addresses (and how many "all" is) come from the node, so the job is described, not built.
core::Result<int> PrintDryRun(const ExecOptions& options, const gcp::tpu::NodeRef& node,
                              const std::vector<int>& workers, Context& context) {
  const std::string via = options.reach.via == "ssh" ? "ssh -L" : "IAP";
  const nlohmann::json plan = {
      {"dry_run", true},
      {"node", node.Name()},
      {"workers", options.workers == "all" ? nlohmann::json("all") : nlohmann::json(workers)},
      {"via", options.reach.via},
      {"command", options.command},
      {"steps",
       {"GET " + node.Name() + ": its hosts' addresses and its Ray token",
        "open a tunnel (" + via + ") to worker 0, port " + std::to_string(workflow::kRayDashboardPort),
        "POST /api/jobs/: a Ray job running the command once on each chosen host", "follow the job's log to its end"}}};
  PrintResult(context, plan, [&](std::ostream& out) {
    out << "Would run on TPU VM " << node.node << " (" << node.zone << "), worker(s) " << options.workers
        << ", as a Ray job reached through " << via << " (nothing sent):\n  " << ray::ShellJoin(options.command)
        << "\n";
  });
  return core::kExitOk;
}

core::Result<int> RunExec(const ExecOptions& options, Context& context) {
  if (auto valid = gcp::CheckResourceId("NAME", options.name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  if (options.command.empty()) return core::Fail(core::Error::Usage("COMMAND: give it after --"));
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  // Checked against the largest slice first: a typo is said before any call.
  auto named = options.workers == "all" ? core::Result<std::vector<int>>(std::vector<int>{})
                                        : workflow::ParseWorkers("--worker", options.workers, 1 << 16);
  if (!named) return core::Fail(named.error());
  const gcp::tpu::NodeRef ref{*project, *zone, options.name};
  if (auto reach = MakeTpuVmSshRequest(options.reach, ref, 0, workflow::kRayDashboardPort, 0, context); !reach) {
    return core::Fail(reach.error());
  }
  if (context.global.dry_run) return PrintDryRun(options, ref, *named, context);
  Stack& stack = context.stack();
  auto google = stack.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, stack.Provision(*google).endpoints.tpu);
  auto node = tpu.GetNode(ref);
  if (!node) return core::Fail(node.error());
  auto slice = catalog::FindSliceType(node->accelerator_type);
  if (!slice) return core::Fail(slice.error());
  auto workers = workflow::ParseWorkers("--worker", options.workers, slice->hosts);
  if (!workers) return core::Fail(workers.error());
  auto request = workflow::TpuVmExecRequest(node->ip_addresses, *workers, options.command);
  if (!request) return core::Fail(request.error());
  auto session = ConnectTpuVmRay({options.name, options.reach}, {}, context);
  if (!session) return core::Fail(session.error());
  auto& client = *(*session)->client;
  auto submitted = client.Submit(*request);
  if (!submitted) return core::Fail(submitted.error());
  context.reporter().Debug("exec job " + submitted->submission_id);
  auto job = FollowJob(context, client, submitted->submission_id, LogSink(context), 0, *(*session)->websocket,
                       "--tpu-vm " + options.name + " --zone " + *zone);
  if (!job) return core::Fail(job.error());
  return Finish(context, *job);
}

}  // namespace

void SetupTpuVmExecCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<ExecOptions>();
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
