#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_reach.h"

// What runs on, or forwards to, the workers of a TPU VM made with tpu-vm create --ray: `tpu-vm
// exec` (a command on each chosen host, as a Ray job on the node's own Ray) and `tpu-vm tunnel`
// (a worker's port on 127.0.0.1, through IAP or ssh -L).
namespace tputrain::workflow {

// `tpu-vm exec NAME --worker W -- CMD`, as typed.
struct TpuVmExecCommand {
  std::string name;
  std::string workers = "all";  // "all", or worker numbers "0,2"
  std::vector<std::string> command;
  TpuVmReach reach;
};

// What the command would do, checked without a call (a typo in --worker is said before any):
// the node, and the workers named (empty for "all": how many there are comes from the node).
struct TpuVmExecPlan {
  gcp::tpu::NodeRef node;
  std::vector<int> workers;
  std::string command_line;  // the command as a shell would take it
};
core::Result<TpuVmExecPlan> PlanTpuVmExec(Root& root, const TpuVmExecCommand& command);
// `tpu-vm exec --dry-run --format json`: the node, the workers, the reach and the steps it would
// take, said without a credential, a call or a tunnel.
nlohmann::json DryRunJson(const TpuVmExecCommand& command, const TpuVmExecPlan& plan);
// How --via reaches the worker, in words: "IAP" or "ssh -L".
std::string ViaWords(const TpuVmReach& reach);

// Runs it: the node's hosts read, the job submitted on its Ray (through IAP, or --via ssh),
// followed to its end with each host's output on `log`. The job's final details.
core::Result<ray::JobDetails> RunTpuVmExec(Root& root, const TpuVmExecCommand& command, std::ostream& log);

// `tpu-vm tunnel NAME --port P`, as typed.
struct TpuVmTunnelCommand {
  std::string name;
  int port = 0;
  int local_port = 0;  // 0: a free one
  int worker = 0;
  std::string instance;  // the worker's Compute instance; empty: its hostname guest attribute
  TpuVmReach reach;
};

// What the tunnel says as it runs: the loopback port it listens on and where it leads ("port
// 8265 of NAME through IAP"), once; and each connection's failure, from connection threads.
struct TunnelEvents {
  std::function<void(int local_port, const std::string& leads_to)> on_listening;
  std::function<void(const core::Error& error)> on_connection_error;
};

// --via ssh under --dry-run: nothing started; the ssh command line and its known_hosts line.
struct SshTunnelPlan {
  std::string command_line;
  std::string known_hosts_line;
};

// Opens the tunnel and keeps it until Ctrl-C; under --dry-run with --via ssh, only the plan.
core::Result<std::optional<SshTunnelPlan>> RunTpuVmTunnel(Root& root, const TpuVmTunnelCommand& command,
                                                          const TunnelEvents& events);

}  // namespace tputrain::workflow
