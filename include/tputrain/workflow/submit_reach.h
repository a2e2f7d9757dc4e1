#pragma once

#include <memory>
#include <optional>

#include "tputrain/k8s/connect.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/submit_flow.h"
#include "tputrain/workflow/tpu_vm_reach.h"

// Where `tputrain submit` sends its job: a Ray at an address, a TPU VM's head, or a RayCluster it
// applies on a cluster; what the command's connections are made from, through the root.
namespace tputrain::workflow {

struct SubmitReach {
  ray::ConnectionFlags connection;  // --address, --header
  KubeAccessFlags access;           // the cluster flags
  LedgerFlags ledger;               // --run, --state-dir
  TpuVmRayTarget tpu_vm;            // --tpu-vm: the Ray of a tpu-vm create --ray node
  // The node in full (a stack's TPU VM, in the zone it was made in): instead of --tpu-vm with
  // the configured project and zone.
  std::optional<gcp::tpu::NodeRef> tpu_vm_node;
};

// What the flow's connections keep alive until the command ends.
struct SubmitConnections {
  std::unique_ptr<RaySession> ray;
  std::unique_ptr<k8s::Connection> kube;
  std::unique_ptr<http::WebSocketConnector> websocket;
  std::unique_ptr<ClusterSubmitEnv> cluster;
};

// Submit's environment on `root`: a Ray session at the address (or the TPU VM's head), or the
// cluster's connection, WebSocket connector and Ray client through its proxy; the run ledger;
// following with the Ctrl-C behaviour and a re-attach hint. Connections are made only when the
// flow asks, and kept in `kept`. The caller sets the callbacks (what it prints).
SubmitEnv SubmitEnvOf(Root& root, const SubmitReach& reach, SubmitConnections& kept);

}  // namespace tputrain::workflow
