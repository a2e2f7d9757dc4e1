#pragma once

#include <memory>

#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "stack.h"
#include "tputrain/cli/context.h"
#include "tputrain/workflow/submit_flow.h"

namespace tputrain::cli {

// The flags submit's connections come from.
struct SubmitFlags {
  const ray::ConnectionFlags& connection;  // --address, --header
  const KubeAccessFlags& access;           // the cluster flags
  const ProvisionFlags& ledger;            // --run, --state-dir
  const TpuVmRayTarget& tpu_vm;            // --tpu-vm: the Ray of a tpu-vm create --ray node
};

// What the flow's connections keep alive until the command ends.
struct SubmitConnections {
  std::unique_ptr<RaySession> ray;
  std::unique_ptr<k8s::Connection> kube;
  std::unique_ptr<http::WebSocketConnector> websocket;
  std::unique_ptr<workflow::ClusterSubmitEnv> cluster;
};

// workflow::Submit's environment from the Stack: a Ray session at the address, or the cluster's
// connection, WebSocket connector and Ray client through its proxy; the run ledger; following
// with the Ctrl-C behaviour and a re-attach hint. Connections are made only when the flow asks.
workflow::SubmitEnv MakeSubmitEnv(const SubmitFlags& flags, Context& context, SubmitConnections& kept);

}  // namespace tputrain::cli
