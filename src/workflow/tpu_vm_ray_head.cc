#include "tpu_vm_ray_head.h"

#include "tputrain/core/resource_name.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {

namespace {

// Slice 0 of a multislice queued resource (full name or id): where its Ray head runs.
core::Result<gcp::tpu::NodeRef> FirstSlice(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node,
                                           const std::string& queued) {
  auto resource = client.GetQueuedResource({node.project, node.zone, core::LastSegment(queued)});
  if (!resource) return core::Fail(resource.error());
  if (resource->node_ids.empty()) {
    return core::Fail(
        core::Error::Make(core::ErrorKind::kFailedPrecondition, "queued resource " + queued + " has no nodes"));
  }
  return gcp::tpu::NodeRef{node.project, node.zone, resource->node_ids.front()};
}

}  // namespace

core::Result<TpuVmRayHead> FindTpuVmRayHead(gcp::tpu::Client& client, const gcp::tpu::NodeRef& asked) {
  gcp::tpu::NodeRef node = asked;
  auto found = client.GetNode(node);
  if (!found && found.error().kind == core::ErrorKind::kNotFound) {
    // The name given to --num-slices: a queued resource, whose slice 0 holds the head.
    auto first = FirstSlice(client, node, node.node);
    if (!first) return core::Fail(first.error().kind == core::ErrorKind::kNotFound ? found.error() : first.error());
    node = *first;
    found = client.GetNode(node);
  }
  if (!found) return core::Fail(found.error());
  const std::string head_address = found->raw.value("metadata", nlohmann::json::object()).value(kRayHeadKey, "");
  const std::string queued = found->raw.value("queuedResource", "");
  if (!head_address.empty() && !queued.empty() &&
      (found->ip_addresses.empty() || found->ip_addresses.front() != head_address)) {
    // Another slice of a multislice: its worker 0 runs no head.
    auto first = FirstSlice(client, node, queued);
    if (!first) return core::Fail(first.error());
    node = *first;
    found = client.GetNode(node);
    if (!found) return core::Fail(found.error());
  }
  if (found->state != "READY") {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "TPU VM " + node.node + " is " + found->state + ", not READY"));
  }
  TpuVmRayHead head;
  head.node = node;
  const auto metadata = found->raw.value("metadata", nlohmann::json::object());
  head.token = metadata.value(kRayTokenKey, "");
  if (head.token.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "TPU VM " + node.node + " has no Ray of tputrain's (no " + kRayTokenKey +
                                            " in its metadata): create it with tputrain tpu-vm create --ray"));
  }
  auto instance = TpuVmWorkerInstance(client, node, 0);
  if (!instance) return core::Fail(instance.error());
  head.instance = std::move(*instance);
  return head;
}

core::Result<std::string> TpuVmWorkerInstance(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node, int worker) {
  auto values = client.GetGuestAttributes(node, "");
  if (!values) return core::Fail(values.error());
  std::string instance;
  for (const auto& value : *values) {
    if (value.worker_id == std::to_string(worker) && value.key == "hostname") instance = value.value;
  }
  if (instance.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable,
                                        "worker " + std::to_string(worker) + " of " + node.node +
                                            " has not reported its hostname (guest attribute hostname): it is "
                                            "still booting (tputrain tpu-vm ray-status), or there is no such worker"));
  }
  // The guest agent may report the full name (t1v-n-...-w-0.ZONE.c.PROJECT.internal); IAP wants
  // the instance's.
  return instance.substr(0, instance.find('.'));
}

core::Result<std::unique_ptr<gcp::iap::LoopbackTunnel>> OpenTpuVmTunnel(const RayTunnelEnv& env,
                                                                        const gcp::tpu::NodeRef& node,
                                                                        const std::string& instance, int port) {
  gcp::iap::TunnelOptions options;
  options.base_url = env.relay_url;
  options.credential = env.credential;
  gcp::iap::TunnelTarget target{node.project, node.zone, instance, port, "nic0"};
  http::WebSocketConnector* websocket = &env.websocket;
  return gcp::iap::LoopbackTunnel::Listen(
      0, [websocket, target, options] { return gcp::iap::TunnelSession::Open(*websocket, target, options); },
      env.on_error);
}

}  // namespace tputrain::workflow
