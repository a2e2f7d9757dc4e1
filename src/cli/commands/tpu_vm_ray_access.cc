// job ... --tpu-vm NAME: the Ray head of a `tpu-vm create --ray` node, through IAP TCP forwarding.
#include <mutex>

#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/gcp/names.h"
#include "tputrain/workflow/tpu_vm_ray_head.h"

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

}  // namespace

void AddTpuVmRayFlag(CLI::App& command, std::string& tpu_vm) {
  command.add_option("--tpu-vm", tpu_vm,
                     "The Ray head of a TPU VM made with tpu-vm create --ray (with --zone): reached through IAP");
}

core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRay(const std::string& tpu_vm, const ray::ConnectionFlags& flags,
                                                          Context& context) {
  if (!flags.address.empty()) return core::Fail(core::Error::Usage("--tpu-vm and --address are exclusive: pass one"));
  if (auto valid = gcp::CheckResourceId("--tpu-vm", tpu_vm, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  auto relay_url = gcp::iap::TunnelBaseUrlFromEnv(context.env);
  if (!relay_url) return core::Fail(relay_url.error());
  Stack& stack = context.stack();
  auto google = stack.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, stack.Provision(*google).endpoints.tpu);
  const gcp::tpu::NodeRef node{*project, *zone, tpu_vm};
  auto head = workflow::FindTpuVmRayHead(tpu, node);
  if (!head) return core::Fail(head.error());
  context.redactor.Hold(head->token);

  auto kept = std::make_shared<TpuVmRayTunnel>();
  auto relay = stack.GoogleRelay();
  if (!relay) return core::Fail(relay.error());
  kept->relay = std::move(*relay);
  workflow::RayTunnelEnv env{*kept->relay.connector, kept->relay.credential, *relay_url,
                             [&context](const core::Error& error) {
                               // From a connection's thread: one line, as the reporter says it.
                               context.reporter().Warn(context.redactor(error.message));
                             }};
  auto tunnel = workflow::OpenTpuVmTunnel(env, node, head->instance, workflow::kRayDashboardPort);
  if (!tunnel) return core::Fail(tunnel.error());
  kept->tunnel = std::move(*tunnel);
  context.reporter().Debug("Ray head of " + tpu_vm + " (" + head->instance +
                           ") at 127.0.0.1:" + std::to_string(kept->tunnel->port()) + " through IAP");

  ray::ConnectionFlags through = flags;
  through.address = "http://127.0.0.1:" + std::to_string(kept->tunnel->port());
  // X-Ray-Authorization: Ray reads it as it reads Authorization (notes/ray.md §token auth).
  through.headers.push_back("X-Ray-Authorization: Bearer " + head->token);
  auto options = ray::ResolveClientOptions(through, context.env, std::nullopt);
  if (!options) return core::Fail(options.error());
  auto session = stack.Ray(std::move(*options));
  if (!session) return core::Fail(session.error());
  (*session)->keeps_alive = std::move(kept);
  return session;
}

}  // namespace tputrain::cli
