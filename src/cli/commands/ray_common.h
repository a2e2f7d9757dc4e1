#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "stack.h"
#include "tputrain/cli/context.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/ray/log_follower.h"
#include "tputrain/workflow/tpu_vm_ssh_tunnel.h"

// What `job` and `submit` share: the Ray connection flags, and following a job to its end
// with the Ctrl-C behaviour (TTY: offer to stop the job; otherwise detach with a hint).
namespace tputrain::cli {

// --address URL and --header K:V (repeatable).
void AddRayConnectionFlags(CLI::App* command, ray::ConnectionFlags& flags);

// Flags > RAY_ADDRESS > tputrain.yaml's ray_address; a usage error when none is set.
core::Result<ray::ClientOptions> ResolveRayClient(const ray::ConnectionFlags& flags, Context& context);

// How a TPU VM worker is reached: --via iap|ssh, and for ssh --ssh-key-file and --internal-ip.
struct TpuVmReach {
  std::string via = "iap";  // checked by CLI11 at parse time; workflow::ParseTpuVmVia makes it an enum
  std::string ssh_key_file;
  bool internal_ip = false;
};
struct TpuVmRayTarget {
  std::string name;
  TpuVmReach reach;
};
void AddTpuVmReachFlags(CLI::App& command, TpuVmReach& reach);
// --tpu-vm NAME: the Ray head of a `tpu-vm create --ray` node (with --zone), and how to reach it.
void AddTpuVmRayFlag(CLI::App& command, TpuVmRayTarget& tpu_vm);
// A session with that head: its dashboard through an IAP tunnel (or ssh -L) on a loopback port,
// its token from the node's metadata (held by the redactor), kept open as long as the session.
core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRay(const TpuVmRayTarget& tpu_vm,
                                                          const ray::ConnectionFlags& flags, Context& context);
// The same for a node named in full (a ray-job ledger entry's, at cleanup).
core::Result<std::unique_ptr<RaySession>> ConnectTpuVmRayAt(const gcp::tpu::NodeRef& node, const TpuVmReach& reach,
                                                            const ray::ConnectionFlags& flags, Context& context);
// The node --tpu-vm NAME names (--project, --zone): what a submitted job's ledger entry records.
core::Result<gcp::tpu::NodeRef> TpuVmRayNode(const TpuVmRayTarget& tpu_vm, Context& context);
// --via ssh's inputs: the request from the flags (a usage error for ssh flags without --via ssh;
// --dry-run carried) and the environment (steps on stderr, the Ray token held by the redactor).
core::Result<workflow::TpuVmSshRequest> MakeTpuVmSshRequest(const TpuVmReach& reach, const gcp::tpu::NodeRef& node,
                                                            int worker, int remote_port, int local_port,
                                                            Context& context);
workflow::TpuVmSshEnv MakeTpuVmSshEnv(Context& context);

// Follows `id` until the job is terminal, handing each new log piece to `on_text`. On Ctrl-C:
// on a TTY asks whether to stop the job (and then waits for it to stop), otherwise prints the
// re-attach command on stderr and returns kCancelled. Returns the job's final details.
// `reattach_flags` say how to reach this Ray again on the command line, for the re-attach hint
// (empty: --address and the client's address).
core::Result<ray::JobDetails> FollowJob(Context& context, ray::JobsClient& client, const std::string& id,
                                        const ray::LogTextHandler& on_text, uint64_t start_offset,
                                        http::WebSocketConnector& websocket, const std::string& reattach_flags = "");

}  // namespace tputrain::cli
