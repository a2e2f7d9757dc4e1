#pragma once

#include <string>

#include "child_processes.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/tpu_host_fleet.h"

// The steps that make and unmake the emulator's TPU VM hosts as network namespaces, with iproute2
// and util-linux (ip, unshare): the bridge every host joins, one host, and a crashed emulator's
// leftovers. Root only.
namespace tputrain::emulator {

// The names one host's pieces go by.
struct TpuHostNames {
  std::string netns;     // tpuemu<a>x<b>-<node id>-w<worker>
  std::string veth;      // tpuemu<a>x<b>: the machine's end, on the bridge (15 characters at most)
  std::string etc_dir;   // /etc/netns/<netns>: hosts, resolv.conf, bound over /etc by `ip netns exec`
  std::string host_dir;  // <state dir>/<netns>: startup-script, startup-script.log
};
TpuHostNames NamesFor(const TpuHostSpec& spec, const std::string& state_dir);

// The bridge with the metadata server's address on it (no uplink, no forwarding).
core::Status CreateHostBridge(ChildProcesses& children);
void RemoveHostBridge(ChildProcesses& children);

// Ends the processes of, and removes, every namespace, link and /etc/netns directory named with
// the emulator's prefix: what an emulator that was killed left behind.
void RemoveLeftoverHosts(ChildProcesses& children);

// The namespace, its veth on the bridge, address, dead-end default route and /etc/netns files.
core::Status CreateHostNetwork(ChildProcesses& children, const TpuHostSpec& spec, const TpuHostNames& names);
// Runs the startup script in the namespace with its own hostname, /dev and /tmp; returns its PID.
// `with_sshd`: first an sshd on the host's address port 22 with a host key of its own, published
// as guest attribute hostkeys/ssh-ed25519 (files under host_dir/ssh).
core::Result<pid_t> StartHost(ChildProcesses& children, const TpuHostSpec& spec, const TpuHostNames& names,
                              const std::string& host_path, bool with_sshd);
// SIGKILL to every PID `ip netns pids` lists, polled until none is left (bounded), then the
// veth, the namespace and the /etc/netns directory go (the log stays). Never by process name.
void RemoveHost(ChildProcesses& children, const TpuHostNames& names);

}  // namespace tputrain::emulator
