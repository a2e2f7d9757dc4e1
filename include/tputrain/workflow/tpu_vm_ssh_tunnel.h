#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/core/subprocess.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/tpu_vm_ssh.h"

// `--via ssh`: a TPU VM worker's port on 127.0.0.1 through an `ssh -L` child, as `gcloud compute
// tpus tpu-vm ssh` + `ray dashboard` do: the user's key (made when missing) added to the node's
// ssh-keys metadata when missing, the host's key from its guest attributes as the only known host.
namespace tputrain::workflow {

struct TpuVmSshRequest {
  gcp::tpu::NodeRef node;
  int worker = 0;
  int remote_port = 0;
  int local_port = 0;    // 0: a free one
  std::string key_file;  // empty: ~/.ssh/google_compute_engine, as gcloud
  bool internal_ip = false;
  bool dry_run = false;  // no key made, no metadata patched, no ssh started: the steps are said
};

struct TpuVmSshEnv : core::Runtime {
  const core::Env& env;  // HOME, USER, PATH (ssh, ssh-keygen), and the child's environment
  // Every metadata value that is sent back in the patch but must never be printed (the Ray token).
  std::function<void(const std::string&)> hold_secret;
  // One line per step taken (or, under dry_run, that would be).
  std::function<void(const std::string&)> on_step;
};

// What is known once the node and its host key are read and the key is in place.
struct TpuVmSshPlan {
  SshForward forward;  // known_hosts and local_port are filled when it starts
  std::string known_hosts_line;
  bool key_added = false;       // just patched into ssh-keys: the guest may need a moment
  bool writes_pending = false;  // dry run: a key or the metadata would have been written
};

// Reads the node and worker's host key, makes the key and patches ssh-keys when missing (not under
// dry_run). One-line errors: no ssh client, no host key published, no external IP.
core::Result<TpuVmSshPlan> PrepareTpuVmSsh(gcp::tpu::Client& tpu, const TpuVmSshRequest& request,
                                           const TpuVmSshEnv& env);

// A running `ssh -N -L`; stopped (SIGTERM, then reaped) and its private directory removed when
// destroyed.
class SshTunnel {
 public:
  ~SshTunnel();
  int port() const { return port_; }
  pid_t pid() const { return child_->pid(); }
  // The failure once ssh has ended by itself (the connection dropped), else nothing.
  std::optional<core::Error> Ended();
  void Stop();

 private:
  friend core::Result<std::unique_ptr<SshTunnel>> StartTpuVmSshTunnel(const TpuVmSshPlan&, const TpuVmSshEnv&, int);
  SshForward forward_;
  std::string dir_;
  std::string log_path_;
  int port_ = 0;
  std::unique_ptr<core::ChildProcess> child_;
};

// Starts ssh and waits (backoff, no fixed sleep) until 127.0.0.1:port accepts; a key just added is
// retried while the guest has not taken it (up to a minute, as gcloud waits).
core::Result<std::unique_ptr<SshTunnel>> StartTpuVmSshTunnel(const TpuVmSshPlan& plan, const TpuVmSshEnv& env,
                                                             int local_port);

// Keeps the tunnel until Ctrl-C (success) or ssh ends by itself (its failure).
core::Status KeepTpuVmSshTunnel(SshTunnel& tunnel, const TpuVmSshEnv& env);

}  // namespace tputrain::workflow
