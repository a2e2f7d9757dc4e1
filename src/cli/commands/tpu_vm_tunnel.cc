// tputrain tpu-vm tunnel: a port of a TPU VM worker on 127.0.0.1 through IAP TCP forwarding
// (gcloud compute start-iap-tunnel) or an `ssh -L` child (--via ssh), kept open until Ctrl-C.
#include <mutex>

#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "stack.h"
#include "tputrain/cli/output.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/tpu_vm_ray_head.h"
#include "tputrain/workflow/tpu_vm_tunnel.h"

namespace tputrain::cli {
namespace {

struct TunnelOptions {
  std::string name;
  int port = 0;
  int local_port = 0;
  int worker = 0;
  std::string instance;
  TpuVmReach reach;
};

core::Status CheckPort(const std::string& flag, int port, int lowest) {
  if (port >= lowest && port <= 65535) return {};
  return core::Fail(core::Error::Usage(flag + ": expected a TCP port (" + std::to_string(lowest) + " to 65535), got " +
                                       std::to_string(port)));
}

// --via ssh: the plan (said, not carried out, under --dry-run), then ssh until Ctrl-C.
core::Result<int> RunSshTunnel(const workflow::TpuVmSshRequest& request, Context& context) {
  auto& stack = context.stack();
  auto google = stack.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, stack.Provision(*google).endpoints.tpu);
  auto env = MakeTpuVmSshEnv(context);
  auto plan = workflow::PrepareTpuVmSsh(tpu, request, env);
  if (!plan) return core::Fail(plan.error());
  if (request.dry_run) {
    auto forward = plan->forward;
    forward.known_hosts = "KNOWN_HOSTS";  // a private file made at start, holding the line below
    std::string line;
    for (const auto& arg : workflow::SshForwardArgs(forward)) line += (line.empty() ? "" : " ") + arg;
    context.err << "KNOWN_HOSTS: " << plan->known_hosts_line << "\n";
    context.out << line << "\n";
    return core::kExitOk;
  }
  auto tunnel = workflow::StartTpuVmSshTunnel(*plan, env, request.local_port);
  if (!tunnel) return core::Fail(tunnel.error());
  context.out << "127.0.0.1:" << (*tunnel)->port() << std::endl;
  context.err << "Forwarding 127.0.0.1:" << (*tunnel)->port() << " to port " << request.remote_port << " of "
              << plan->forward.user << "@" << plan->forward.address << " through ssh (pid " << (*tunnel)->pid()
              << "); Ctrl-C to stop" << std::endl;
  if (auto kept = workflow::KeepTpuVmSshTunnel(**tunnel, env); !kept) return core::Fail(kept.error());
  return core::kExitOk;
}

core::Result<int> RunTunnel(const TunnelOptions& options, Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  if (auto valid = gcp::CheckResourceId("NAME", options.name, gcp::kTpuNodeNameLength); !valid)
    return core::Fail(valid.error());
  if (auto valid = CheckPort("--port", options.port, 1); !valid) return core::Fail(valid.error());
  if (auto valid = CheckPort("--local-port", options.local_port, 0); !valid) return core::Fail(valid.error());
  if (options.worker < 0) return core::Fail(core::Error::Usage("--worker: expected 0 or more"));
  if (!options.instance.empty()) {
    if (auto valid = gcp::CheckResourceId("--instance", options.instance, 63); !valid) return core::Fail(valid.error());
  }
  auto ssh_request = MakeTpuVmSshRequest(options.reach, {*project, *zone, options.name}, options.worker, options.port,
                                         options.local_port, context);
  if (!ssh_request) return core::Fail(ssh_request.error());
  if (options.reach.via == "ssh") {
    if (!options.instance.empty()) return core::Fail(core::Error::Usage("--instance goes with --via iap"));
    return RunSshTunnel(*ssh_request, context);
  }
  auto relay_url = gcp::iap::TunnelBaseUrlFromEnv(context.env);
  if (!relay_url) return core::Fail(relay_url.error());
  auto& stack = context.stack();
  // The worker's Compute instance name: --instance, else its `hostname` guest attribute.
  std::string instance = options.instance;
  if (instance.empty()) {
    auto google = stack.Google();
    if (!google) return core::Fail(google.error());
    gcp::tpu::Client tpu(**google, stack.Provision(*google).endpoints.tpu);
    auto found = workflow::TpuVmWorkerInstance(tpu, {*project, *zone, options.name}, options.worker);
    if (!found) return core::Fail(found.error());
    instance = *found;
  }
  auto relay = stack.GoogleRelay();
  if (!relay) return core::Fail(relay.error());

  std::mutex err_mutex;
  workflow::TpuVmTunnelEnv env{stack.runtime(), *relay->connector, relay->credential,
                               [&](int local_port) {
                                 std::lock_guard lock(err_mutex);
                                 context.out << "127.0.0.1:" << local_port << std::endl;
                                 context.err << "Forwarding 127.0.0.1:" << local_port << " to port " << options.port
                                             << " of " << instance << " through IAP; Ctrl-C to stop" << std::endl;
                               },
                               [&](const core::Error& error) {
                                 std::lock_guard lock(err_mutex);
                                 context.err << context.redactor(error.message) << std::endl;
                               }};
  workflow::TpuVmTunnelRequest request{
      {*project, *zone, instance, options.port, "nic0"}, options.local_port, *relay_url};
  if (auto kept = workflow::KeepTpuVmTunnel(env, request); !kept) return core::Fail(kept.error());
  return core::kExitOk;
}

}  // namespace

void SetupTpuVmTunnelCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<TunnelOptions>();
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
