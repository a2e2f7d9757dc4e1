#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// The pieces of reaching a TPU VM worker with `ssh -L` (gcloud's `tpu-vm ssh`, Ray's `ray
// dashboard`): the user's key in the node's ssh-keys metadata, the host's key from its guest
// attributes as the only known host, the worker's address, and the ssh command line. Pure: the
// calls and the process are in tpu_vm_ssh_tunnel.h.
namespace tputrain::workflow {

// How `--tpu-vm` users and `tpu-vm tunnel` reach a worker's port.
enum class TpuVmVia { kIap, kSsh };
// "iap" or "ssh"; a usage error naming --via otherwise.
core::Result<TpuVmVia> ParseTpuVmVia(const std::string& text);

inline constexpr char kSshKeysMetadataKey[] = "ssh-keys";
// What the guest agent publishes and gcloud reads: guest attribute hostkeys/ssh-ed25519.
inline constexpr char kHostKeysNamespace[] = "hostkeys";
inline constexpr char kHostKeyType[] = "ssh-ed25519";

// A login name as the guest agent makes accounts from ssh-keys: lowercase letters, digits, '_',
// '-' and '.', starting with a letter or '_', 32 characters at most. $USER lowercased, as gcloud.
core::Result<std::string> SshUserName(const std::string& user);

// "USER:TYPE BLOB USER", the line ssh-keys holds per key, from a .pub file's text ("TYPE BLOB
// [COMMENT]"); InvalidArgument when the text is no public key.
core::Result<std::string> SshKeysEntry(const std::string& user, const std::string& public_key_text);

// `existing` (the node's ssh-keys, newline-separated) with `entry` added as a line of its own, or
// nothing when a line already grants that key to that user.
std::optional<std::string> MergeSshKeys(const std::string& existing, const std::string& entry);

// gcloud's HostKeyAlias for a TPU VM worker: tpu.<node id>-<worker>-<last 6 characters of its key>.
std::string TpuVmHostKeyAlias(const std::string& node_id, int worker, const std::string& host_key);

// "ALIAS TYPE BLOB" for a private known_hosts file. `host_key` is the guest attribute's value,
// "TYPE BLOB" or the bare blob (then `key_type` is its type); InvalidArgument for anything else.
core::Result<std::string> KnownHostsLine(const std::string& alias, const std::string& key_type,
                                         const std::string& host_key);

// Worker `worker`'s address from a Node's networkEndpoints: accessConfig.externalIp, or its
// ipAddress with `internal_ip` (as gcloud's --internal-ip). FailedPrecondition, saying what to
// pass, when the worker has no external address.
core::Result<std::string> TpuVmWorkerAddress(const nlohmann::json& node, const std::string& node_id, int worker,
                                             bool internal_ip);

// One `ssh -N -L` forward: 127.0.0.1:local_port on this machine to localhost:remote_port on the worker.
struct SshForward {
  std::string ssh = "ssh";
  std::string key_file;
  std::string known_hosts;
  std::string host_key_alias;
  std::string user;
  std::string address;
  int local_port = 0;
  int remote_port = 0;
};
std::vector<std::string> SshForwardArgs(const SshForward& forward);

// Why an ssh ended, from what it printed.
enum class SshFailure { kHostKey, kPermissionDenied, kUnreachable, kLocalPort, kOther };
SshFailure ClassifySshFailure(const std::string& log);
// One line for an ssh that ended before forwarding: which of the above, and what to do.
core::Error SshFailureError(const SshForward& forward, const std::string& log);

}  // namespace tputrain::workflow
