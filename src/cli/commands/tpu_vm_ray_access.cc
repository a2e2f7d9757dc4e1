// job ... --tpu-vm NAME: the Ray head of a `tpu-vm create --ray` node, through IAP TCP forwarding
// or, with --via ssh, an `ssh -L` child.
#include <mutex>

#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/gcp/names.h"
#include "tputrain/workflow/tpu_vm_ray_head.h"
#include "tputrain/workflow/tpu_vm_ssh_tunnel.h"

namespace tputrain::cli {
namespace {

// The relay's connector and the tunnel through it, released in that order's reverse.
struct TpuVmRayTunnel {
  Stack::GoogleWebSocket relay;
  std::unique_ptr<gcp::iap::LoopbackTunnel> tunnel;
  ~TpuVmRayTunnel() {
    if (tunnel) tunnel->Stop();
  }
};

// The ssh child, stopped (and its private directory removed) with the session.
struct TpuVmSshKept {
  std::unique_ptr<workflow::SshTunnel> tunnel;
};

core::Result<std::unique_ptr<RaySession>> SessionThrough(int port, const std::string& token,
                                                         const ray::ConnectionFlags& flags, Context& context,
                                                         std::shared_ptr<void> kept) {
  ray::ConnectionFlags through = flags;
  through.address = "http://127.0.0.1:" + std::to_string(port);
  // X-Ray-Authorization: Ray reads it as it reads Authorization (notes/ray.md §token auth).
  through.headers.push_back("X-Ray-Authorization: Bearer " + token);
  auto options = ray::ResolveClientOptions(through, context.env, std::nullopt, &context.redactor);
  if (!options) return core::Fail(options.error());
  auto session = context.stack().Ray(std::move(*options));
  if (!session) return core::Fail(session.error());
  (*session)->keeps_alive = std::move(kept);
  return session;
}

}  // namespace

void AddTpuVmReachFlags(CLI::App& command, TpuVmReach& reach) {
  command.add_option("--via", reach.via, "How to reach the worker: iap (IAP TCP forwarding) or ssh (ssh -L)")
      ->check(CLI::IsMember({"iap", "ssh"}));
  command.add_option("--ssh-key-file", reach.ssh_key_file,
                     "With --via ssh: the private key (default ~/.ssh/google_compute_engine, made when missing)");
  command.add_flag("--internal-ip", reach.internal_ip,
                   "With --via ssh: the worker's internal address rather than its external IP");
}

void AddTpuVmRayFlag(CLI::App& command, TpuVmRayTarget& tpu_vm) {
  command.add_option("--tpu-vm", tpu_vm.name,
                     "The Ray head of a TPU VM made with tpu-vm create --ray (with --zone): reached through IAP, or "
                     "--via ssh");
  AddTpuVmReachFlags(command, tpu_vm.reach);
}

workflow::TpuVmSshEnv MakeTpuVmSshEnv(Context& context) {
  Stack& stack = context.stack();
  return {stack.runtime(), context.env, [&context](const std::string& secret) { context.redactor.Hold(secret); },
          [&context](const std::string& step) { context.err << context.redactor(step) << std::endl; }};
}

core::Result<workflow::TpuVmSshRequest> MakeTpuVmSshRequest(const TpuVmReach& reach, const gcp::tpu::NodeRef& node,
                                                            int worker, int remote_port, int local_port,
                                                            Context& context) {
  auto via = workflow::ParseTpuVmVia(reach.via);
  if (!via) return core::Fail(via.error());
  if (*via != workflow::TpuVmVia::kSsh && (!reach.ssh_key_file.empty() || reach.internal_ip)) {
    return core::Fail(core::Error::Usage("--ssh-key-file and --internal-ip go with --via ssh"));
  }
  workflow::TpuVmSshRequest request;
  request.node = node;
  request.worker = worker;
  request.remote_port = remote_port;
  request.local_port = local_port;
  request.key_file = reach.ssh_key_file;
  request.internal_ip = reach.internal_ip;
  request.dry_run = context.global.dry_run;
  return request;
}

core::Result<gcp::tpu::NodeRef> TpuVmRayNode(const TpuVmRayTarget& tpu_vm, Context& context) {
  if (auto valid = gcp::CheckResourceId("--tpu-vm", tpu_vm.name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  return gcp::tpu::NodeRef{*project, *zone, tpu_vm.name};
}

core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRay(const TpuVmRayTarget& tpu_vm,
                                                          const ray::ConnectionFlags& flags, Context& context) {
  if (!flags.address.empty()) return core::Fail(core::Error::Usage("--tpu-vm and --address are exclusive: pass one"));
  auto node = TpuVmRayNode(tpu_vm, context);
  if (!node) return core::Fail(node.error());
  return ConnectTpuVmRayAt(*node, tpu_vm.reach, flags, context);
}

core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRayAt(const gcp::tpu::NodeRef& node, const TpuVmReach& reach,
                                                            const ray::ConnectionFlags& flags, Context& context) {
  auto ssh_request = MakeTpuVmSshRequest(reach, node, 0, workflow::kRayDashboardPort, 0, context);
  if (!ssh_request) return core::Fail(ssh_request.error());
  const bool via_ssh = reach.via == "ssh";
  auto relay_url = gcp::iap::TunnelBaseUrlFromEnv(context.env);
  if (!via_ssh && !relay_url) return core::Fail(relay_url.error());
  Stack& stack = context.stack();
  auto google = stack.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, stack.Provision(*google).endpoints.tpu);
  auto head = workflow::FindTpuVmRayHead(tpu, node);
  if (!head) return core::Fail(head.error());
  context.redactor.Hold(head->token);
  ssh_request->node = head->node;  // a multislice's head is on slice 0, whichever name was given

  if (via_ssh) {
    auto env = MakeTpuVmSshEnv(context);
    auto plan = workflow::PrepareTpuVmSsh(tpu, *ssh_request, env);
    if (!plan) return core::Fail(plan.error());
    if (plan->writes_pending) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          "--dry-run writes nothing, and ssh needs the steps above first: run "
                                          "once without --dry-run (or --via iap)"));
    }
    auto tunnel = workflow::StartTpuVmSshTunnel(*plan, env, 0);
    if (!tunnel) return core::Fail(tunnel.error());
    const int port = (*tunnel)->port();
    context.reporter().Debug("Ray head of " + head->node.node + " at 127.0.0.1:" + std::to_string(port) +
                             " through ssh " + plan->forward.user + "@" + plan->forward.address);
    auto kept = std::make_shared<TpuVmSshKept>();
    kept->tunnel = std::move(*tunnel);
    return SessionThrough(port, head->token, flags, context, std::move(kept));
  }

  auto kept = std::make_shared<TpuVmRayTunnel>();
  auto relay = stack.GoogleRelay();
  if (!relay) return core::Fail(relay.error());
  kept->relay = std::move(*relay);
  workflow::RayTunnelEnv env{*kept->relay.connector, kept->relay.credential, *relay_url,
                             [&context](const core::Error& error) {
                               // From a connection's thread: one line, as the reporter says it.
                               context.reporter().Warn(context.redactor(error.message));
                             }};
  auto tunnel = workflow::OpenTpuVmTunnel(env, head->node, head->instance, workflow::kRayDashboardPort);
  if (!tunnel) return core::Fail(tunnel.error());
  kept->tunnel = std::move(*tunnel);
  context.reporter().Debug("Ray head of " + head->node.node + " (" + head->instance +
                           ") at 127.0.0.1:" + std::to_string(kept->tunnel->port()) + " through IAP");
  const int port = kept->tunnel->port();
  return SessionThrough(port, head->token, flags, context, std::move(kept));
}

}  // namespace tputrain::cli
