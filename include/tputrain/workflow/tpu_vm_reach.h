#pragma once

#include <memory>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_ssh_tunnel.h"

// How a command reaches a worker of a TPU VM made with tpu-vm create --ray: IAP TCP forwarding
// (Google's relay, no ssh), or --via ssh (an `ssh -L` child, its key put in the node's metadata
// when missing); and the Ray head there (`job ... --tpu-vm NAME`, `tpu-vm exec`, cleanup of a job).
namespace tputrain::workflow {

// --via iap|ssh, and for ssh --ssh-key-file and --internal-ip, as typed.
struct TpuVmReach {
  std::string via = "iap";  // checked by the CLI's parser; ParseTpuVmVia makes it an enum
  std::string ssh_key_file;
  bool internal_ip = false;
};
// --tpu-vm NAME (with --zone) and how to reach it.
struct TpuVmRayTarget {
  std::string name;
  TpuVmReach reach;
};

// --via ssh's environment on the root: its steps on stderr, the Ray token held by the redactor.
TpuVmSshEnv TpuVmSshEnvOf(Root& root);
// --via ssh's request from the flags: a usage error for ssh flags without --via ssh; --dry-run
// carried.
core::Result<TpuVmSshRequest> TpuVmSshRequestOf(Root& root, const TpuVmReach& reach, const gcp::tpu::NodeRef& node,
                                                int worker, int remote_port, int local_port);

// The node --tpu-vm NAME names (--project, --zone): what a submitted job's ledger entry records.
core::Result<gcp::tpu::NodeRef> TpuVmRayNode(Root& root, const TpuVmRayTarget& tpu_vm);
// A session with that node's Ray head: its dashboard through an IAP tunnel (or ssh -L) on a
// loopback port, its token from the node's metadata (held by the redactor), kept open as long as
// the session. `flags` may add headers; an --address with it is a usage error.
core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRay(Root& root, const TpuVmRayTarget& tpu_vm,
                                                          const ray::ConnectionFlags& flags);
// The same for a node named in full (a ray-job ledger entry's, at cleanup).
core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRayAt(Root& root, const gcp::tpu::NodeRef& node,
                                                            const TpuVmReach& reach, const ray::ConnectionFlags& flags);

}  // namespace tputrain::workflow
