#include "tpu_vm_tunnel.h"

#include "tputrain/core/poll.h"
#include "tputrain/gcp/iap/loopback_tunnel.h"

namespace tputrain::workflow {

core::Status KeepTpuVmTunnel(const TpuVmTunnelEnv& env, const TpuVmTunnelRequest& request) {
  gcp::iap::TunnelOptions options;
  options.base_url = request.relay_url;
  options.credential = env.credential;
  auto listening = gcp::iap::LoopbackTunnel::Listen(
      request.local_port,
      [&env, target = request.target, options] {
        return gcp::iap::TunnelSession::Open(env.websocket, target, options);
      },
      env.on_connection_error);
  if (!listening) return core::Fail(listening.error());
  env.on_listening((*listening)->port());
  // The connections run on their own threads; this one only waits for Ctrl-C. The cancel token
  // has no way to wake a waiter, so it is looked at a few times a second.
  core::PollOptions wait;
  wait.initial_delay = std::chrono::milliseconds(200);
  wait.max_delay = std::chrono::milliseconds(200);
  auto waited = core::PollUntil([]() -> core::Result<bool> { return false; }, wait, env);
  (*listening)->Stop();
  if (!waited && waited.error().kind != core::ErrorKind::kCancelled) return waited;
  return {};
}

}  // namespace tputrain::workflow
