#include "tpu_host_netns.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tputrain/emulator/tpu_host_network.h"

namespace tputrain::emulator {
namespace {

namespace fs = std::filesystem;

// Runs inside `ip netns exec NS unshare --uts --mount --propagation private`, so every mount and
// the hostname stay the host's own. Arguments: hostname, chips, script. The /dev it leaves has
// the usual character devices, /dev/shm, /dev/pts and empty accel files, which is what Ray counts
// chips by (non-directory /dev/accel*).
constexpr char kBootScript[] = R"(set -eu
hostname "$1"
mount -t tmpfs -o mode=0755,nosuid tmpfs /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8
mknod -m 666 /dev/urandom c 1 9
mknod -m 666 /dev/tty c 5 0
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir /dev/shm /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
if mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts; then ln -s pts/ptmx /dev/ptmx; fi
i=0
while [ "$i" -lt "$2" ]; do : >"/dev/accel$i"; i=$((i + 1)); done
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
cd /
if [ -n "$4" ]; then
  # As the guest agent: a host key of its own, sshd on the host's address, and the key published
  # as guest attribute hostkeys/ssh-ed25519 for gcloud and tputrain to pin.
  ssh-keygen -q -t ed25519 -N '' -C "root@$1" -f "$4/ssh_host_ed25519_key" </dev/null
  /usr/sbin/sshd -f "$4/sshd_config" -D -e >>"$4/sshd.log" 2>&1 &
  key=$(cut -d' ' -f1,2 "$4/ssh_host_ed25519_key.pub")
  url=http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/hostkeys/ssh-ed25519
  published=no
  for try in 1 2 3 4 5; do
    if curl -sf --max-time 5 -X PUT -H 'Metadata-Flavor: Google' --data-binary "$key" "$url"; then
      published=yes
      break
    fi
    sleep "0.$try"
  done
  echo "tputrain emulator: sshd on $5:22, host key published: $published"
fi
echo "tputrain emulator: $1 booted ($2 chips); running its startup script"
exec /bin/bash "$3"
)";

CommandResult Ip(ChildProcesses& children, std::vector<std::string> args) {
  args.insert(args.begin(), "ip");
  return children.Run(args);
}

core::Status MustIp(ChildProcesses& children, const std::vector<std::string>& args) {
  auto result = Ip(children, args);
  if (result.exit_code == 0) return {};
  std::string joined = "ip";
  for (const auto& arg : args) joined += " " + arg;
  std::string err = result.err;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  return core::Fail(core::Error::Internal(joined + " failed: " + err));
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::vector<pid_t> PidsIn(ChildProcesses& children, const std::string& netns) {
  std::vector<pid_t> pids;
  for (const auto& word : Words(Ip(children, {"netns", "pids", netns}).out)) pids.push_back(std::stoi(word));
  return pids;
}

void EndProcesses(ChildProcesses& children, const std::string& netns) {
  // A deletion is abrupt anyway: SIGKILL at once (SIGTERM and a wait took 42 s for 4 Ray hosts).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    auto pids = PidsIn(children, netns);
    if (pids.empty() || std::chrono::steady_clock::now() > deadline) return;
    for (pid_t pid : pids) kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// sshd as a TPU VM image runs it, on the host's address only: keys from the instance's ssh-keys
// metadata (read at each login by the command below, so a patched key works at once), no
// passwords, local forwarding allowed (ssh -L is what tputrain uses it for).
std::string SshdConfig(const std::string& dir, const std::string& address) {
  return "ListenAddress " + address + ":22\nHostKey " + dir + "/ssh_host_ed25519_key\nPidFile " + dir +
         "/sshd.pid\nAuthorizedKeysFile none\nAuthorizedKeysCommand " + dir +
         "/authorized-keys %u\nAuthorizedKeysCommandUser root\nPasswordAuthentication no\n"
         "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nUsePAM no\n"
         "AllowTcpForwarding local\nX11Forwarding no\nPrintMotd no\n";
}

// The guest agent's part: `USER:KEY` lines of ssh-keys, the keys of the user sshd asks about.
constexpr char kAuthorizedKeys[] = R"(#!/bin/bash
curl -sf --max-time 5 -H 'Metadata-Flavor: Google' \
  http://metadata.google.internal/computeMetadata/v1/instance/attributes/ssh-keys |
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in "$1":*) printf '%s\n' "${line#*:}" ;; esac
  done
exit 0
)";

bool HasPrefix(const std::string& name) { return name.rfind(kTpuHostNamePrefix, 0) == 0; }

core::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::trunc);
  file << text;
  file.close();
  if (!file) return core::Fail(core::Error::Internal("cannot write " + path));
  return {};
}

}  // namespace

TpuHostNames NamesFor(const TpuHostSpec& spec, const std::string& state_dir) {
  // 10.213.A.B → "tpuemu<A>x<B>": unique per host while the emulator runs, and short enough for a link.
  std::string octets = spec.address.substr(spec.address.find('.', spec.address.find('.') + 1) + 1);
  std::string tag =
      std::string(kTpuHostNamePrefix) + octets.substr(0, octets.find('.')) + "x" + octets.substr(octets.find('.') + 1);
  std::string node_id = spec.node_name.substr(spec.node_name.rfind('/') + 1);
  TpuHostNames names;
  names.netns = tag + "-" + node_id + "-w" + std::to_string(spec.worker);
  names.veth = tag;
  names.etc_dir = "/etc/netns/" + names.netns;
  names.host_dir = state_dir + "/" + names.netns;
  return names;
}

core::Status CreateHostBridge(ChildProcesses& children) {
  if (auto status = MustIp(children, {"link", "add", kTpuHostBridge, "type", "bridge"}); !status) return status;
  std::string address = std::string(kTpuHostBridgeAddress) + "/" + std::to_string(kTpuHostPrefixLength);
  if (auto status = MustIp(children, {"addr", "add", address, "dev", kTpuHostBridge}); !status) return status;
  return MustIp(children, {"link", "set", kTpuHostBridge, "up"});
}

void RemoveHostBridge(ChildProcesses& children) { Ip(children, {"link", "del", kTpuHostBridge}); }

void RemoveLeftoverHosts(ChildProcesses& children) {
  for (const auto& line : Words(Ip(children, {"netns", "list"}).out)) {
    if (!HasPrefix(line)) continue;
    EndProcesses(children, line);
    Ip(children, {"netns", "del", line});
  }
  std::istringstream links(Ip(children, {"-o", "link", "show"}).out);
  for (std::string line; std::getline(links, line);) {
    auto words = Words(line);  // "7: tpuemu1x1@if6: <...>"
    if (words.size() < 2) continue;
    std::string name = words[1].substr(0, words[1].find_first_of("@:"));
    if (HasPrefix(name)) Ip(children, {"link", "del", name});
  }
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator("/etc/netns", ignored)) {
    if (HasPrefix(entry.path().filename().string())) fs::remove_all(entry.path(), ignored);
  }
}

core::Status CreateHostNetwork(ChildProcesses& children, const TpuHostSpec& spec, const TpuHostNames& names) {
  std::error_code error;
  fs::create_directories(names.etc_dir, error);
  fs::create_directories(names.host_dir, error);
  if (error) return core::Fail(core::Error::Internal("cannot create " + names.etc_dir + " or " + names.host_dir));
  // Ray looks the metadata server up by the literal name; DNS goes nowhere (no uplink).
  std::string hosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" + spec.address + "\t" +
                      spec.hostname + "\n" + kTpuHostBridgeAddress + "\tmetadata.google.internal metadata\n";
  if (auto status = WriteFile(names.etc_dir + "/hosts", hosts); !status) return status;
  if (auto status = WriteFile(names.etc_dir + "/resolv.conf", "nameserver 127.0.0.1\n"); !status) return status;
  const std::string& ns = names.netns;
  std::string address = spec.address + "/" + std::to_string(kTpuHostPrefixLength);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"netns", "add", ns},
           {"link", "add", names.veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
           {"link", "set", names.veth, "master", kTpuHostBridge, "up"},
           {"-n", ns, "addr", "add", address, "dev", "eth0"},
           {"-n", ns, "link", "set", "eth0", "up"},
           {"-n", ns, "link", "set", "lo", "up"},
           // A default route, as a VPC host has: Ray finds its node IP by it. The gateway is nobody.
           {"-n", ns, "route", "add", "default", "via", kTpuHostDeadEndGateway}}) {
    if (auto status = MustIp(children, args); !status) return status;
  }
  return {};
}

core::Result<pid_t> StartHost(ChildProcesses& children, const TpuHostSpec& spec, const TpuHostNames& names,
                              const std::string& host_path, bool with_sshd) {
  std::string script = names.host_dir + "/startup-script";
  if (auto status = WriteFile(script, spec.startup_script); !status) return core::Fail(status.error());
  std::string ssh_dir;
  if (with_sshd) {
    // sshd refuses an AuthorizedKeysCommand that anyone but root could change: root's, 0700/0755.
    ssh_dir = names.host_dir + "/ssh";
    std::error_code error;
    fs::create_directories(ssh_dir, error);
    fs::permissions(ssh_dir, fs::perms::owner_all, error);
    if (auto status = WriteFile(ssh_dir + "/sshd_config", SshdConfig(ssh_dir, spec.address)); !status) {
      return core::Fail(status.error());
    }
    if (auto status = WriteFile(ssh_dir + "/authorized-keys", kAuthorizedKeys); !status) {
      return core::Fail(status.error());
    }
    fs::permissions(ssh_dir + "/authorized-keys",
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                        fs::perms::others_exec,
                    error);
    if (error) return core::Fail(core::Error::Internal("cannot prepare " + ssh_dir));
  }
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  if (!host_path.empty()) path = host_path + "/bin:" + path;
  std::vector<std::string> env = {"PATH=" + path, "HOME=/root", "USER=root", "LOGNAME=root", "SHELL=/bin/bash",
                                  "LANG=C.UTF-8",
                                  // For clients that take the metadata server's address from the
                                  // environment (google-auth, JAX); Ray uses the name in /etc/hosts.
                                  std::string("GCE_METADATA_HOST=") + kTpuHostBridgeAddress,
                                  std::string("GCE_METADATA_IP=") + kTpuHostBridgeAddress};
  std::vector<std::string> argv = {"ip",
                                   "netns",
                                   "exec",
                                   names.netns,
                                   "unshare",
                                   "--uts",
                                   "--mount",
                                   "--propagation",
                                   "private",
                                   "/bin/bash",
                                   "-c",
                                   kBootScript,
                                   "tputrain-host-boot",
                                   spec.hostname,
                                   std::to_string(spec.chips),
                                   script,
                                   ssh_dir,
                                   spec.address};
  return children.Spawn(argv, env, names.host_dir + "/startup-script.log");
}

void RemoveHost(ChildProcesses& children, const TpuHostNames& names) {
  EndProcesses(children, names.netns);
  Ip(children, {"link", "del", names.veth});
  Ip(children, {"netns", "del", names.netns});
  std::error_code ignored;
  fs::remove_all(names.etc_dir, ignored);
  // host_dir stays, with the startup script's log, until the emulator stops.
}

}  // namespace tputrain::emulator
