#include "tputrain/workflow/tpu_vm_ssh_tunnel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tputrain/core/file.h"
#include "tputrain/core/poll.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

namespace fs = std::filesystem;

// How long a key just added to ssh-keys may be refused: the guest agent reads metadata on change,
// usually within seconds (gcloud allows 60 s for the same).
constexpr auto kKeyPropagation = std::chrono::seconds(60);

core::Error Failed(core::ErrorKind kind, std::string message) { return core::Error::Make(kind, std::move(message)); }

// A port nobody listens on now; ssh binds it a moment later (ssh -L needs a number, not 0).
core::Result<int> FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return core::Fail(core::Error::Internal("cannot open a socket"));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
            getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) return core::Fail(core::Error::Internal("cannot find a free port on 127.0.0.1"));
  return static_cast<int>(ntohs(address.sin_port));
}

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return connected;
}

core::Status WritePrivate(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::trunc);
  file << text;
  file.close();
  if (!file || chmod(path.c_str(), 0600) != 0) return core::Fail(core::Error::Internal("cannot write " + path));
  return {};
}

// The user's public key: KEY.pub, else derived from KEY; under dry_run a missing key is said, not made.
core::Result<std::string> PublicKey(const std::string& key_file, const std::string& user,
                                    const TpuVmSshRequest& request, const TpuVmSshEnv& env, TpuVmSshPlan& plan) {
  std::error_code error;
  if (!fs::exists(key_file, error)) {
    if (request.dry_run) {
      env.on_step("would create " + key_file + " (ssh-keygen -t ed25519) and add it to the node's ssh-keys");
      plan.writes_pending = true;
      return std::string();
    }
    fs::create_directories(fs::path(key_file).parent_path(), error);
    chmod(fs::path(key_file).parent_path().c_str(), 0700);
    // ed25519: short, fast, and accepted by every TPU VM image's sshd (OpenSSH >= 6.5).
    auto made = core::RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", user, "-f", key_file}, env.env);
    if (!made) return core::Fail(made.error());
    if (made->exit_code != 0) {
      return core::Fail(core::Error::Internal("ssh-keygen could not create " + key_file + ": " + made->output));
    }
    env.on_step("Created " + key_file);
  }
  if (fs::exists(key_file + ".pub", error)) return core::ReadFile(key_file + ".pub", "the public key", 64 * 1024);
  auto derived = core::RunProcess({"ssh-keygen", "-y", "-f", key_file}, env.env);
  if (!derived) return core::Fail(derived.error());
  if (derived->exit_code != 0) {
    return core::Fail(
        Failed(core::ErrorKind::kInvalidArgument,
               "--ssh-key-file " + key_file + ": no public key beside it and ssh-keygen -y cannot read it"));
  }
  return derived->output;
}

core::Result<std::string> HostKey(gcp::tpu::Client& tpu, const TpuVmSshRequest& request) {
  auto values = tpu.GetGuestAttributes(request.node, std::string(kHostKeysNamespace) + "/");
  if (!values) return core::Fail(values.error());
  for (const auto& value : *values) {
    if (value.worker_id == std::to_string(request.worker) && value.key == kHostKeyType && !value.value.empty()) {
      return value.value;
    }
  }
  return core::Fail(Failed(core::ErrorKind::kUnavailable,
                           "worker " + std::to_string(request.worker) + " of " + request.node.node +
                               " has published no ssh host key (guest attribute hostkeys/ssh-ed25519): it is still "
                               "booting or runs no guest agent; --via iap needs none"));
}

// Adds the key to ssh-keys when missing; the patch carries the whole map back.
core::Status EnsureAuthorized(gcp::tpu::Client& tpu, const TpuVmSshRequest& request, const TpuVmSshEnv& env,
                              std::map<std::string, std::string> metadata, const std::string& entry,
                              const std::string& key_file, TpuVmSshPlan& plan) {
  auto merged = MergeSshKeys(metadata[kSshKeysMetadataKey], entry);
  if (!merged) return {};
  if (request.dry_run) {
    env.on_step("would add " + key_file + ".pub to " + request.node.node +
                "'s ssh-keys metadata (nodes.patch updateMask=metadata)");
    plan.writes_pending = true;
    return {};
  }
  metadata[kSshKeysMetadataKey] = *merged;
  auto operation = tpu.PatchNodeMetadata(request.node, metadata);
  if (!operation) return core::Fail(operation.error());
  if (!operation->done) {
    gcp::operations::PollOptions options;
    options.initial_delay = std::chrono::milliseconds(500);
    options.timeout = std::chrono::minutes(5);
    auto done = gcp::operations::Wait(gcp::tpu::OperationWaiting(tpu, operation->name), options, env);
    if (!done) return core::Fail(done.error());
  }
  plan.key_added = true;
  env.on_step("Added " + key_file + ".pub for " + plan.forward.user + " to " + request.node.node +
              "'s ssh-keys metadata");
  return {};
}

}  // namespace

core::Result<TpuVmSshPlan> PrepareTpuVmSsh(gcp::tpu::Client& tpu, const TpuVmSshRequest& request,
                                           const TpuVmSshEnv& env) {
  TpuVmSshPlan plan;
  plan.forward.ssh = core::FindOnPath("ssh", env.env);
  if (plan.forward.ssh.empty()) {
    return core::Fail(Failed(core::ErrorKind::kFailedPrecondition,
                             "--via ssh: no ssh on PATH (install openssh-client), or use --via iap"));
  }
  auto user = SshUserName(env.env.Get("USER").value_or(env.env.GetOr("LOGNAME", "")));
  if (!user) return core::Fail(user.error());
  plan.forward.user = *user;
  plan.forward.key_file = request.key_file.empty() ? env.env.Home() + "/.ssh/google_compute_engine" : request.key_file;
  plan.forward.remote_port = request.remote_port;
  plan.forward.local_port = request.local_port;

  auto node = tpu.GetNode(request.node);
  if (!node) return core::Fail(node.error());
  if (node->state != "READY") {
    return core::Fail(Failed(core::ErrorKind::kFailedPrecondition,
                             "TPU VM " + request.node.node + " is " + node->state + ", not READY"));
  }
  std::map<std::string, std::string> metadata;
  const nlohmann::json node_metadata = node->raw.value("metadata", nlohmann::json::object());
  for (const auto& [key, value] : node_metadata.items()) {
    if (value.is_string()) metadata[key] = value.get<std::string>();
  }
  // The patch sends the token back; it must never be printed, even with --log-http.
  if (auto token = metadata.find(kRayTokenKey); token != metadata.end() && env.hold_secret)
    env.hold_secret(token->second);
  auto address = TpuVmWorkerAddress(node->raw, request.node.node, request.worker, request.internal_ip);
  if (!address) return core::Fail(address.error());
  plan.forward.address = *address;

  auto host_key = HostKey(tpu, request);
  if (!host_key) return core::Fail(host_key.error());
  plan.forward.host_key_alias = TpuVmHostKeyAlias(request.node.node, request.worker, *host_key);
  auto line = KnownHostsLine(plan.forward.host_key_alias, kHostKeyType, *host_key);
  if (!line) return core::Fail(line.error());
  plan.known_hosts_line = *line;

  auto public_key = PublicKey(plan.forward.key_file, plan.forward.user, request, env, plan);
  if (!public_key) return core::Fail(public_key.error());
  if (public_key->empty()) return plan;  // dry run without a key: nothing more to know
  auto entry = SshKeysEntry(plan.forward.user, *public_key);
  if (!entry) {
    return core::Fail(
        Failed(core::ErrorKind::kInvalidArgument, plan.forward.key_file + ".pub: " + entry.error().message));
  }
  if (auto added = EnsureAuthorized(tpu, request, env, std::move(metadata), *entry, plan.forward.key_file, plan);
      !added) {
    return core::Fail(added.error());
  }
  return plan;
}

SshTunnel::~SshTunnel() { Stop(); }

void SshTunnel::Stop() {
  if (child_) child_->Stop();
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    dir_.clear();
  }
}

std::optional<core::Error> SshTunnel::Ended() {
  if (!child_ || !child_->ExitCode()) return std::nullopt;
  auto log = core::ReadFile(log_path_, "ssh's log", 1024 * 1024);
  return SshFailureError(forward_, log ? *log : "");
}

core::Result<std::unique_ptr<SshTunnel>> StartTpuVmSshTunnel(const TpuVmSshPlan& plan, const TpuVmSshEnv& env,
                                                             int local_port) {
  auto tunnel = std::unique_ptr<SshTunnel>(new SshTunnel());
  tunnel->forward_ = plan.forward;
  std::string pattern = env.env.GetOr("TMPDIR", "/tmp") + "/tputrain-ssh-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return core::Fail(core::Error::Internal("cannot create " + pattern));
  tunnel->dir_ = pattern;
  tunnel->forward_.known_hosts = pattern + "/known_hosts";
  tunnel->log_path_ = pattern + "/ssh.log";
  if (auto written = WritePrivate(tunnel->forward_.known_hosts, plan.known_hosts_line + "\n"); !written) {
    return core::Fail(written.error());
  }
  if (local_port == 0) {
    auto port = FreeLoopbackPort();
    if (!port) return core::Fail(port.error());
    local_port = *port;
  }
  tunnel->forward_.local_port = local_port;
  tunnel->port_ = local_port;

  const auto give_up_refusals = env.clock.Now() + kKeyPropagation;
  for (int attempt = 0;; ++attempt) {
    auto child = core::ChildProcess::Start(SshForwardArgs(tunnel->forward_), env.env, tunnel->log_path_);
    if (!child) return core::Fail(child.error());
    tunnel->child_ = std::move(*child);
    core::PollOptions wait;
    wait.initial_delay = std::chrono::milliseconds(20);
    wait.multiplier = 1.5;
    wait.max_delay = std::chrono::milliseconds(500);
    wait.timeout = std::chrono::seconds(60);  // ssh gives up connecting after ConnectTimeout=20 itself
    wait.timeout_note =
        "ssh to " + plan.forward.address + " started but 127.0.0.1:" + std::to_string(local_port) + " never accepted";
    wait.is_transient = [](const core::Error&) { return false; };
    SshTunnel& running = *tunnel;
    auto ready = core::PollUntil(
        [&running, local_port]() -> core::Result<bool> {
          if (auto ended = running.Ended()) return core::Fail(*ended);
          return Accepts(local_port);
        },
        wait, env);
    if (ready) return tunnel;
    tunnel->child_->Stop();
    auto log = core::ReadFile(tunnel->log_path_, "ssh's log", 1024 * 1024);
    const bool refused = log && ClassifySshFailure(*log) == SshFailure::kPermissionDenied;
    if (!(refused && plan.key_added && env.clock.Now() < give_up_refusals)) return core::Fail(ready.error());
    // The guest agent has not read the new key yet.
    if (!env.sleeper.Sleep(core::PollDelay(wait, attempt) * 10)) return core::Fail(ready.error());
  }
}

core::Status KeepTpuVmSshTunnel(SshTunnel& tunnel, const TpuVmSshEnv& env) {
  core::PollOptions wait;
  wait.initial_delay = std::chrono::milliseconds(200);
  wait.max_delay = std::chrono::milliseconds(200);
  wait.is_transient = [](const core::Error&) { return false; };
  auto kept = core::PollUntil(
      [&tunnel]() -> core::Result<bool> {
        if (auto ended = tunnel.Ended()) return core::Fail(*ended);
        return false;
      },
      wait, env);
  tunnel.Stop();
  if (!kept && kept.error().kind != core::ErrorKind::kCancelled) return kept;
  return {};
}

}  // namespace tputrain::workflow
