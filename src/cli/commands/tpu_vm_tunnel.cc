// tputrain tpu-vm tunnel: a port of a TPU VM worker on 127.0.0.1 through IAP TCP forwarding
// (gcloud compute start-iap-tunnel) or an `ssh -L` child (--via ssh), kept open until Ctrl-C.
#include <mutex>

#include "commands/commands.h"
#include "flags/ray_flags.h"
#include "output/output.h"
#include "tputrain/workflow/tpu_vm_remote.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunTunnel(const workflow::TpuVmTunnelCommand& options, Context& context) {
  std::mutex print_mutex;  // the IAP tunnel's connection errors come from its connection threads
  workflow::TunnelEvents events{[&](int local_port, const std::string& leads_to) {
                                  std::lock_guard lock(print_mutex);
                                  context.out << "127.0.0.1:" << local_port << std::endl;
                                  SayOnStderr(context, "Forwarding 127.0.0.1:" + std::to_string(local_port) + " to " +
                                                           leads_to + "; Ctrl-C to stop");
                                },
                                [&](const core::Error& error) {
                                  std::lock_guard lock(print_mutex);
                                  context.err << context.redactor(error.message) << std::endl;
                                }};
  auto plan = workflow::RunTpuVmTunnel(context.stack(), options, events);
  if (!plan) return core::Fail(plan.error());
  if (*plan) {  // --dry-run --via ssh: what would run
    context.err << "KNOWN_HOSTS: " << (*plan)->known_hosts_line << "\n";
    context.out << (*plan)->command_line << "\n";
  }
  return core::kExitOk;
}

}  // namespace

void SetupTpuVmTunnelCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<workflow::TpuVmTunnelCommand>();
  auto* tunnel = tpu_vm.add_subcommand(
      "tunnel", "Forward a local port to a TPU VM worker's port through IAP TCP forwarding, until Ctrl-C");
  tunnel->add_option("name", options->name, "TPU VM name")->required();
  tunnel->add_option("--port", options->port, "The worker's port (8265: the Ray dashboard)")->required();
  tunnel->add_option("--local-port", options->local_port, "Port on 127.0.0.1 (default: a free one, printed)");
  tunnel->add_option("--worker", options->worker, "Worker index (default 0: the Ray head)");
  tunnel->add_option("--instance", options->instance,
                     "The worker's Compute instance name (default: its hostname guest attribute)");
  AddTpuVmReachFlags(*tunnel, options->reach);
  tunnel->footer(
      "With --via ssh: ssh -N -L to the worker, its host key from guest attribute hostkeys/ssh-ed25519, the key "
      "added to the node's ssh-keys metadata when missing.\n"
      "The relay is wss://tunnel.cloudproxy.app, or TPUTRAIN_IAP_TUNNEL_URL (as gcloud's "
      "--iap-tunnel-url-override), trusted through CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE.\n"
      "Example:\n  tputrain tpu-vm tunnel ray-v5p --zone us-east5-a --port 8265");
  tunnel->callback([options, &context] { context.outcome = RunTunnel(*options, context); });
}

}  // namespace tputrain::cli
