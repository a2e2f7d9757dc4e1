#include "tputrain/workflow/tpu_vm_remote.h"

#include <ostream>

#include "tpu_vm_exec.h"
#include "tpu_vm_ray_head.h"
#include "tpu_vm_tunnel.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/ray_jobs.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/tpu_vm_ssh.h"

namespace tputrain::workflow {
namespace {

core::Status CheckPort(const std::string& flag, int port, int lowest) {
  if (port >= lowest && port <= 65535) return {};
  return core::Fail(core::Error::Usage(flag + ": expected a TCP port (" + std::to_string(lowest) + " to 65535), got " +
                                       std::to_string(port)));
}

}  // namespace

std::string ViaWords(const TpuVmReach& reach) { return reach.via == "ssh" ? "ssh -L" : "IAP"; }

// The hosts' addresses (and how many "all" is) come from the node, so the job is described, not
// built.
nlohmann::json DryRunJson(const TpuVmExecCommand& command, const TpuVmExecPlan& plan) {
  const auto& node = plan.node;
  return {
      {"dry_run", true},
      {"node", node.Name()},
      {"workers", command.workers == "all" ? nlohmann::json("all") : nlohmann::json(plan.workers)},
      {"via", command.reach.via},
      {"command", command.command},
      {"steps",
       {"GET " + node.Name() + ": its hosts' addresses and its Ray token",
        "open a tunnel (" + ViaWords(command.reach) + ") to worker 0, port " + std::to_string(kRayDashboardPort),
        "POST /api/jobs/: a Ray job running the command once on each chosen host", "follow the job's log to its end"}}};
}

core::Result<TpuVmExecPlan> PlanTpuVmExec(Root& root, const TpuVmExecCommand& command) {
  if (auto valid = gcp::CheckResourceId("NAME", command.name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  if (command.command.empty()) return core::Fail(core::Error::Usage("COMMAND: give it after --"));
  auto where = ProjectAndZone(root);
  if (!where) return core::Fail(where.error());
  // Checked against the largest slice first: a typo is said before any call.
  auto named = command.workers == "all" ? core::Result<std::vector<int>>(std::vector<int>{})
                                        : ParseWorkers("--worker", command.workers, 1 << 16);
  if (!named) return core::Fail(named.error());
  const gcp::tpu::NodeRef node{where->project, where->zone, command.name};
  if (auto reach = TpuVmSshRequestOf(root, command.reach, node, 0, kRayDashboardPort, 0); !reach) {
    return core::Fail(reach.error());
  }
  return TpuVmExecPlan{node, *named, ray::ShellJoin(command.command)};
}

core::Result<ray::JobDetails> RunTpuVmExec(Root& root, const TpuVmExecCommand& command, std::ostream& log) {
  auto plan = PlanTpuVmExec(root, command);
  if (!plan) return core::Fail(plan.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client tpu(**google, root.endpoints().tpu);
  auto node = tpu.GetNode(plan->node);
  if (!node) return core::Fail(node.error());
  auto slice = catalog::FindSliceType(node->accelerator_type);
  if (!slice) return core::Fail(slice.error());
  auto workers = ParseWorkers("--worker", command.workers, slice->hosts);
  if (!workers) return core::Fail(workers.error());
  auto request = TpuVmExecRequest(node->ip_addresses, *workers, command.command);
  if (!request) return core::Fail(request.error());
  auto session = ConnectTpuVmRay(root, {command.name, command.reach}, {});
  if (!session) return core::Fail(session.error());
  auto submitted = (*session)->client->Submit(*request);
  if (!submitted) return core::Fail(submitted.error());
  root.runtime().reporter.Debug("exec job " + submitted->submission_id);
  return FollowJob(root, **session, submitted->submission_id, log,
                   "--tpu-vm " + command.name + " --zone " + plan->node.zone);
}

core::Result<std::optional<SshTunnelPlan>> RunTpuVmTunnel(Root& root, const TpuVmTunnelCommand& command,
                                                          const TunnelEvents& events) {
  auto where = ProjectAndZone(root);
  if (!where) return core::Fail(where.error());
  const auto& [project, zone] = *where;
  if (auto valid = gcp::CheckResourceId("NAME", command.name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(valid.error());
  }
  if (auto valid = CheckPort("--port", command.port, 1); !valid) return core::Fail(valid.error());
  if (auto valid = CheckPort("--local-port", command.local_port, 0); !valid) return core::Fail(valid.error());
  if (command.worker < 0) return core::Fail(core::Error::Usage("--worker: expected 0 or more"));
  if (!command.instance.empty()) {
    if (auto valid = gcp::CheckResourceId("--instance", command.instance, 63); !valid) {
      return core::Fail(valid.error());
    }
  }
  auto ssh_request = TpuVmSshRequestOf(root, command.reach, {project, zone, command.name}, command.worker, command.port,
                                       command.local_port);
  if (!ssh_request) return core::Fail(ssh_request.error());
  if (command.reach.via == "ssh") {
    if (!command.instance.empty()) return core::Fail(core::Error::Usage("--instance goes with --via iap"));
    // The plan (said, not carried out, under --dry-run), then ssh until Ctrl-C.
    auto google = root.Google();
    if (!google) return core::Fail(google.error());
    gcp::tpu::Client tpu(**google, root.endpoints().tpu);
    auto env = TpuVmSshEnvOf(root);
    auto plan = PrepareTpuVmSsh(tpu, *ssh_request, env);
    if (!plan) return core::Fail(plan.error());
    if (ssh_request->dry_run) {
      auto forward = plan->forward;
      forward.known_hosts = "KNOWN_HOSTS";  // a private file made at start, holding the line below
      std::string line;
      for (const auto& arg : SshForwardArgs(forward)) line += (line.empty() ? "" : " ") + arg;
      return std::optional<SshTunnelPlan>(SshTunnelPlan{line, plan->known_hosts_line});
    }
    auto tunnel = StartTpuVmSshTunnel(*plan, env, ssh_request->local_port);
    if (!tunnel) return core::Fail(tunnel.error());
    events.on_listening((*tunnel)->port(), "port " + std::to_string(ssh_request->remote_port) + " of " +
                                               plan->forward.user + "@" + plan->forward.address + " through ssh (pid " +
                                               std::to_string((*tunnel)->pid()) + ")");
    if (auto kept = KeepTpuVmSshTunnel(**tunnel, env); !kept) return core::Fail(kept.error());
    return std::optional<SshTunnelPlan>();
  }
  auto relay_url = gcp::iap::TunnelBaseUrlFromEnv(root.env());
  if (!relay_url) return core::Fail(relay_url.error());
  // The worker's Compute instance name: --instance, else its `hostname` guest attribute.
  std::string instance = command.instance;
  if (instance.empty()) {
    auto google = root.Google();
    if (!google) return core::Fail(google.error());
    gcp::tpu::Client tpu(**google, root.endpoints().tpu);
    auto found = TpuVmWorkerInstance(tpu, {project, zone, command.name}, command.worker);
    if (!found) return core::Fail(found.error());
    instance = *found;
  }
  auto relay = root.GoogleRelay();
  if (!relay) return core::Fail(relay.error());
  TpuVmTunnelEnv env{root.runtime(), *relay->connector, relay->credential,
                     [&](int local_port) {
                       events.on_listening(local_port,
                                           "port " + std::to_string(command.port) + " of " + instance + " through IAP");
                     },
                     events.on_connection_error};
  TpuVmTunnelRequest request{{project, zone, instance, command.port, "nic0"}, command.local_port, *relay_url};
  if (auto kept = KeepTpuVmTunnel(env, request); !kept) return core::Fail(kept.error());
  return std::optional<SshTunnelPlan>();
}

}  // namespace tputrain::workflow
