// The Ray head of a `tpu-vm create --ray` node, through IAP TCP forwarding or, with --via ssh,
// an `ssh -L` child.
#include "tputrain/workflow/tpu_vm_reach.h"

#include "tpu_vm_ray_head.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/reads.h"

namespace tputrain::workflow {
namespace {

// The relay's connector and the tunnel through it, released in that order's reverse.
struct TpuVmRayTunnel {
  Root::GoogleWebSocket relay;
  std::unique_ptr<gcp::iap::LoopbackTunnel> tunnel;
  ~TpuVmRayTunnel() {
    if (tunnel) tunnel->Stop();
  }
};

// The ssh child, stopped (and its private directory removed) with the session.
struct TpuVmSshKept {
  std::unique_ptr<SshTunnel> tunnel;
};

core::Result<std::unique_ptr<RaySession>> SessionThrough(Root& root, int port, const std::string& token,
                                                         const ray::ConnectionFlags& flags,
                                                         std::shared_ptr<void> kept) {
  ray::ConnectionFlags through = flags;
  through.address = "http://127.0.0.1:" + std::to_string(port);
  // X-Ray-Authorization: Ray reads it as it reads Authorization (notes/ray.md §token auth).
  through.headers.push_back("X-Ray-Authorization: Bearer " + token);
  auto options = ray::ResolveClientOptions(through, root.env(), std::nullopt, &root.redactor());
  if (!options) return core::Fail(options.error());
  auto session = root.Ray(std::move(*options));
  if (!session) return core::Fail(session.error());
  (*session)->keeps_alive = std::move(kept);
  return session;
}

}  // namespace

TpuVmSshEnv TpuVmSshEnvOf(Root& root) {
  return {root.runtime(), root.env(), [&root](const std::string& secret) { root.redactor().Hold(secret); },
          [&root](const std::string& step) { root.err() << root.redactor()(step) << std::endl; }};
}

core::Result<TpuVmSshRequest> TpuVmSshRequestOf(Root& root, const TpuVmReach& reach, const gcp::tpu::NodeRef& node,
                                                int worker, int remote_port, int local_port) {
  auto via = ParseTpuVmVia(reach.via);
  if (!via) return core::Fail(via.error());
  if (*via != TpuVmVia::kSsh && (!reach.ssh_key_file.empty() || reach.internal_ip)) {
    return core::Fail(core::Error::Usage("--ssh-key-file and --internal-ip go with --via ssh"));
  }
  TpuVmSshRequest request;
  request.node = node;
  request.worker = worker;
  request.remote_port = remote_port;
  request.local_port = local_port;
  request.key_file = reach.ssh_key_file;
  request.internal_ip = reach.internal_ip;
  request.dry_run = root.dry_run();
  return request;
}

core::Result<gcp::tpu::NodeRef> TpuVmRayNode(Root& root, const TpuVmRayTarget& tpu_vm) {
  if (auto valid = gcp::CheckResourceId("--tpu-vm", tpu_vm.name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  auto where = ProjectAndZone(root);
  if (!where) return core::Fail(where.error());
  return gcp::tpu::NodeRef{where->project, where->zone, tpu_vm.name};
}

core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRay(Root& root, const TpuVmRayTarget& tpu_vm,
                                                          const ray::ConnectionFlags& flags) {
  if (!flags.address.empty()) return core::Fail(core::Error::Usage("--tpu-vm and --address are exclusive: pass one"));
  auto node = TpuVmRayNode(root, tpu_vm);
  if (!node) return core::Fail(node.error());
  return ConnectTpuVmRayAt(root, *node, tpu_vm.reach, flags);
}

core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRayAt(Root& root, const gcp::tpu::NodeRef& node,
                                                            const TpuVmReach& reach,
                                                            const ray::ConnectionFlags& flags) {
  auto ssh_request = TpuVmSshRequestOf(root, reach, node, 0, kRayDashboardPort, 0);
  if (!ssh_request) return core::Fail(ssh_request.error());
  const bool via_ssh = reach.via == "ssh";
  auto relay_url = gcp::iap::TunnelBaseUrlFromEnv(root.env());
  if (!via_ssh && !relay_url) return core::Fail(relay_url.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, root.endpoints().tpu);
  auto head = FindTpuVmRayHead(tpu, node);
  if (!head) return core::Fail(head.error());
  root.redactor().Hold(head->token);
  ssh_request->node = head->node;  // a multislice's head is on slice 0, whichever name was given

  if (via_ssh) {
    auto env = TpuVmSshEnvOf(root);
    auto plan = PrepareTpuVmSsh(tpu, *ssh_request, env);
    if (!plan) return core::Fail(plan.error());
    if (plan->writes_pending) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          "--dry-run writes nothing, and ssh needs the steps above first: run "
                                          "once without --dry-run (or --via iap)"));
    }
    auto tunnel = StartTpuVmSshTunnel(*plan, env, 0);
    if (!tunnel) return core::Fail(tunnel.error());
    const int port = (*tunnel)->port();
    root.runtime().reporter.Debug("Ray head of " + head->node.node + " at 127.0.0.1:" + std::to_string(port) +
                                  " through ssh " + plan->forward.user + "@" + plan->forward.address);
    auto kept = std::make_shared<TpuVmSshKept>();
    kept->tunnel = std::move(*tunnel);
    return SessionThrough(root, port, head->token, flags, std::move(kept));
  }

  auto kept = std::make_shared<TpuVmRayTunnel>();
  auto relay = root.GoogleRelay();
  if (!relay) return core::Fail(relay.error());
  kept->relay = std::move(*relay);
  RayTunnelEnv env{*kept->relay.connector, kept->relay.credential, *relay_url, [&root](const core::Error& error) {
                     // From a connection's thread: one line, as the reporter says it.
                     root.runtime().reporter.Warn(root.redactor()(error.message));
                   }};
  auto tunnel = OpenTpuVmTunnel(env, head->node, head->instance, kRayDashboardPort);
  if (!tunnel) return core::Fail(tunnel.error());
  kept->tunnel = std::move(*tunnel);
  root.runtime().reporter.Debug("Ray head of " + head->node.node + " (" + head->instance +
                                ") at 127.0.0.1:" + std::to_string(kept->tunnel->port()) + " through IAP");
  const int port = kept->tunnel->port();
  return SessionThrough(root, port, head->token, flags, std::move(kept));
}

}  // namespace tputrain::workflow
