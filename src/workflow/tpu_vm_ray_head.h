#pragma once

#include <memory>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iap/loopback_tunnel.h"
#include "tputrain/gcp/iap/tunnel_session.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/websocket.h"
#include "tputrain/workflow/iap_firewall.h"  // kRayDashboardPort

// Reaching the Ray head of a `tpu-vm create --ray` node from this machine: its dashboard (8265
// on worker 0) is plain http on the VPC, so it is carried through an IAP TCP-forwarding tunnel
// to a loopback port, and its token is read from the node's metadata.
namespace tputrain::workflow {

struct TpuVmRayHead {
  gcp::tpu::NodeRef node;  // whose worker 0 runs it: the node asked for, or slice 0 of a multislice
  std::string instance;    // worker 0's Compute instance name: what IAP forwards to
  std::string token;       // the Ray token the hosts enforce
};

// The node's Ray head: the token from its metadata (a node made without --ray has none: a
// FailedPrecondition saying so) and worker 0's `hostname` guest attribute, which the guest
// agent writes once the host has booted (gcloud's tpu-vm ssh --tunnel-through-iap reads the same).
// Multislice: the queued resource's name, or any of its slices, finds the head on slice 0.
core::Result<TpuVmRayHead> FindTpuVmRayHead(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node);

// Worker `worker`'s Compute instance name (its `hostname` guest attribute, the domain cut off):
// what IAP forwards to. Unavailable while the host has not reported it (still booting).
core::Result<std::string> TpuVmWorkerInstance(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node, int worker);

struct RayTunnelEnv {
  http::WebSocketConnector& websocket;  // to Google's relay, with the Google credential on each upgrade
  http::Credential* credential;
  std::string relay_url;  // kDefaultTunnelUrl or the override
  gcp::iap::ConnectionErrorSink on_error;
};

// A loopback listener on a free port whose connections reach `port` of `instance` through IAP;
// it lives as long as the returned object.
core::Result<std::unique_ptr<gcp::iap::LoopbackTunnel>> OpenTpuVmTunnel(const RayTunnelEnv& env,
                                                                        const gcp::tpu::NodeRef& node,
                                                                        const std::string& instance, int port);

}  // namespace tputrain::workflow
