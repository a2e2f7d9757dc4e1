// --via ssh against `tputrain emulator start --tpu-hosts netns` (root): each host runs a real
// OpenSSH sshd whose host key it publishes as guest attribute hostkeys/ssh-ed25519 and whose
// authorized keys come from the node's ssh-keys metadata; tputrain adds its key with nodes.patch
// and reaches the Ray head's dashboard through `ssh -L`. One v5p-8 (one host) serves every check.
// Hidden ([.]) until its first run passes: in the first run the host had not published its key.
#include <dirent.h>
#include <signal.h>

#include <fstream>
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/proc_cmdline.h"
#include "workflow/tpu_vm_hosts.h"

namespace tputrain::workflow {
namespace {

using testing::EmulatorEnv;
using tputrain::testing::ProcessOptions;

// The PIDs of ssh processes using `key_file`: what tputrain started and must have stopped.
std::vector<pid_t> SshProcessesWith(const std::string& key_file) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* entry = readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    const std::string cmdline = tputrain::testing::ProcCmdline(entry->d_name);
    if (cmdline.find(key_file) != std::string::npos && cmdline.find("ExitOnForwardFailure") != std::string::npos) {
      found.push_back(std::stoi(entry->d_name));
    }
  }
  closedir(proc);
  return found;
}

TEST_CASE("--via ssh: tpu-vm tunnel and job list reach the head through ssh -L; a wrong host key is refused",
          "[integration][ssh]") {
  const std::string venv = testing::PeerVenv("ray");
  if (!std::filesystem::exists(venv + "/bin/ray")) FAIL("no Ray peer at " + venv + ": run scripts/peers/ray.sh");
  if (!std::filesystem::exists("/usr/sbin/sshd")) FAIL("no /usr/sbin/sshd: run scripts/install-deps.sh");
  EmulatorEnv env({"--tpu-hosts", "netns", "--host-path", venv});
  REQUIRE(env.ready());
  auto created =
      env.Tputrain({"tpu-vm", "create", "ssh-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--ray",
                    "--ray-start-args", "--num-cpus=1 --object-store-memory=100000000", "--ray-timeout", "4m"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);

  const std::string key = env.state_dir() + "/ssh/id";  // made by tputrain on first use
  auto with_ssh = [&](std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {tputrain::testing::TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    for (const char* flag : {"--zone", "us-east5-a", "--via", "ssh", "--internal-ip", "--ssh-key-file"}) {
      options.argv.push_back(flag);
    }
    options.argv.push_back(key);
    options.env = env.Environment();
    options.env["USER"] = "root";
    options.env["RAY_ADDRESS"] = std::nullopt;
    return options;
  };

  // --dry-run writes nothing: no key, no patch.
  auto dry = tputrain::testing::RunProcess(with_ssh({"tpu-vm", "tunnel", "ssh-vm", "--port", "8265", "--dry-run"}));
  INFO(dry.err);
  CHECK(dry.exit_code == 0);
  CHECK(dry.err.find("would create " + key) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(key));

  {
    tputrain::testing::ScopedProcess tunnel(with_ssh({"tpu-vm", "tunnel", "ssh-vm", "--port", "8265"}));
    REQUIRE(tputrain::testing::WaitFor([&] { return tunnel.ReadOut().find('\n') != std::string::npos; },
                                       std::chrono::seconds(60)));
    const std::string listening = tunnel.ReadOut().substr(0, tunnel.ReadOut().find('\n'));
    INFO(listening << tunnel.ReadErr());
    REQUIRE(listening.rfind("127.0.0.1:", 0) == 0);
    CHECK(tunnel.ReadErr().find("to root's") == std::string::npos);
    CHECK(tunnel.ReadErr().find("ssh-keys metadata") != std::string::npos);  // the key was added
    auto answered = testing::LoopbackPage(listening);
    REQUIRE(answered);
    CHECK(answered->status == 200);
    CHECK(SshProcessesWith(key).size() == 1);
    CHECK(tunnel.Stop() == 0);
  }
  CHECK(SshProcessesWith(key).empty());

  // The patch kept every other key; the token never appeared in output.
  std::string token, ns;
  const auto nodes = env.State()["tpuNodes"];
  for (const auto& [name, node] : nodes.items()) {
    token = node["metadata"].value("tputrain-ray-token", "");
    CHECK(node["metadata"].value("ssh-keys", "").rfind("root:ssh-ed25519 ", 0) == 0);
    CHECK(node["metadata"].contains("startup-script"));
  }
  REQUIRE(token.size() == 64);

  auto listed = tputrain::testing::RunProcess(with_ssh({"job", "list", "--tpu-vm", "ssh-vm", "--format", "json"}));
  INFO(listed.err);
  CHECK(listed.exit_code == 0);
  CHECK(listed.out.find(token) == std::string::npos);
  CHECK(listed.err.find(token) == std::string::npos);
  CHECK(SshProcessesWith(key).empty());

  // Another key published as the host's: ssh refuses the real host, and tputrain says why.
  auto hosts = env.Get("/_emulator/tpu-hosts");
  REQUIRE(hosts);
  const auto described = (*hosts)["hosts"];
  for (const auto& host : described) ns = host.value("namespace", "");
  REQUIRE_FALSE(ns.empty());
  const std::string other = env.state_dir() + "/other-host-key";
  REQUIRE(tputrain::testing::RunProcess(ProcessOptions{{"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other}})
              .exit_code == 0);
  std::ifstream pub(other + ".pub");
  std::string type, blob;
  pub >> type >> blob;
  auto put = tputrain::testing::RunProcess(ProcessOptions{
      {"ip", "netns", "exec", ns, "curl", "-sf", "-X", "PUT", "-H", "Metadata-Flavor: Google", "--data-binary",
       type + " " + blob,
       "http://metadata.google.internal/computeMetadata/v1/instance/guest-attributes/hostkeys/ssh-ed25519"}});
  REQUIRE(put.exit_code == 0);
  auto refused = tputrain::testing::RunProcess(with_ssh({"job", "list", "--tpu-vm", "ssh-vm"}));
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("host key mismatch") != std::string::npos);
  CHECK(SshProcessesWith(key).empty());

  auto deleted = env.Tputrain({"tpu-vm", "delete", "ssh-vm", "--zone", "us-east5-a", "--yes"});
  CHECK(deleted.exit_code == 0);
}

}  // namespace
}  // namespace tputrain::workflow
