// --via ssh's pure pieces: the ssh-keys line and its merge, the known_hosts line and alias, the
// worker's address, the ssh argument list, and what an ssh's last words mean.
#include "tputrain/workflow/tpu_vm_ssh.h"

#include <algorithm>

#include <catch2/catch.hpp>

namespace tputrain::workflow {
namespace {

const std::string kBlob = "AAAAC3NzaC1lZDI1NTE5AAAAIOu3tn8N2QeD1gPw8lFHlQ1l4XcXnYbQ1yHbn0kB4Zr9";

TEST_CASE("--via: iap or ssh, anything else a usage error naming the flag") {
  CHECK(*ParseTpuVmVia("iap") == TpuVmVia::kIap);
  CHECK(*ParseTpuVmVia("ssh") == TpuVmVia::kSsh);
  auto bad = ParseTpuVmVia("SSH");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(bad.error().message.rfind("--via:", 0) == 0);
}

TEST_CASE("ssh-keys: USER:TYPE BLOB USER, added once, every other line kept") {
  auto entry = SshKeysEntry("alice", "ssh-ed25519 " + kBlob + " alice@laptop\n");
  REQUIRE(entry);
  CHECK(*entry == "alice:ssh-ed25519 " + kBlob + " alice");
  CHECK_FALSE(SshKeysEntry("alice", "not a key"));
  CHECK_FALSE(SshKeysEntry("alice", ""));

  CHECK(*MergeSshKeys("", *entry) == *entry);
  const std::string others = "bob:ssh-rsa AAAAB3Nza bob\ncarol:ssh-ed25519 AAAAC3Nzb carol";
  CHECK(*MergeSshKeys(others, *entry) == others + "\n" + *entry);
  CHECK(*MergeSshKeys(others + "\n", *entry) == others + "\n" + *entry);
  // Already there (another comment): nothing to patch.
  CHECK_FALSE(MergeSshKeys(others + "\nalice:ssh-ed25519 " + kBlob + " alice@elsewhere", *entry));
  // The same key for another user grants this user nothing.
  CHECK(MergeSshKeys("bob:ssh-ed25519 " + kBlob + " bob", *entry));
}

TEST_CASE("ssh user: $USER lowercased, refused when no login name") {
  CHECK(*SshUserName("Alice") == "alice");
  CHECK(*SshUserName("root") == "root");
  CHECK_FALSE(SshUserName(""));
  CHECK_FALSE(SshUserName("a b"));
  CHECK_FALSE(SshUserName("-x"));
}

TEST_CASE("known_hosts: gcloud's alias and one line for the guest attribute's key") {
  const std::string alias = TpuVmHostKeyAlias("ray-v5p", 0, "ssh-ed25519 " + kBlob);
  CHECK(alias == "tpu.ray-v5p-0-" + kBlob.substr(kBlob.size() - 6));
  CHECK(*KnownHostsLine(alias, "ssh-ed25519", "ssh-ed25519 " + kBlob) == alias + " ssh-ed25519 " + kBlob);
  CHECK(*KnownHostsLine(alias, "ssh-ed25519", kBlob) == alias + " ssh-ed25519 " + kBlob);
  CHECK_FALSE(KnownHostsLine(alias, "ssh-ed25519", "ssh-rsa " + kBlob));
  CHECK_FALSE(KnownHostsLine(alias, "ssh-ed25519", "ssh-ed25519 not-base64!"));
  CHECK_FALSE(KnownHostsLine(alias, "ssh-ed25519", ""));
}

TEST_CASE("the worker's address: external IP, else --internal-ip's internal one") {
  const nlohmann::json node = {
      {"networkEndpoints",
       {{{"ipAddress", "10.0.0.2"}, {"accessConfig", {{"externalIp", "34.1.2.3"}}}}, {{"ipAddress", "10.0.0.3"}}}}};
  CHECK(*TpuVmWorkerAddress(node, "n", 0, false) == "34.1.2.3");
  CHECK(*TpuVmWorkerAddress(node, "n", 0, true) == "10.0.0.2");
  CHECK(*TpuVmWorkerAddress(node, "n", 1, true) == "10.0.0.3");
  auto no_external = TpuVmWorkerAddress(node, "n", 1, false);
  REQUIRE_FALSE(no_external);
  CHECK(no_external.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(no_external.error().message.find("--internal-ip") != std::string::npos);
  CHECK_FALSE(TpuVmWorkerAddress(node, "n", 2, true));
  CHECK_FALSE(TpuVmWorkerAddress(nlohmann::json::object(), "n", 0, true));
}

TEST_CASE("ssh -N -L: loopback only, no prompts, only the published host key") {
  SshForward forward{"/usr/bin/ssh", "/k", "/d/known_hosts", "tpu.n-0-abcdef", "alice", "10.0.0.2", 40001, 8265};
  auto args = SshForwardArgs(forward);
  auto has = [&](const std::string& value) { return std::find(args.begin(), args.end(), value) != args.end(); };
  CHECK(args.front() == "/usr/bin/ssh");
  CHECK(args.back() == "alice@10.0.0.2");
  CHECK(has("-N"));
  CHECK(has("127.0.0.1:40001:localhost:8265"));
  CHECK(has("BatchMode=yes"));
  CHECK(has("ExitOnForwardFailure=yes"));
  CHECK(has("StrictHostKeyChecking=yes"));
  CHECK(has("UserKnownHostsFile=/d/known_hosts"));
  CHECK(has("GlobalKnownHostsFile=/dev/null"));
  CHECK(has("HostKeyAlias=tpu.n-0-abcdef"));
  CHECK(has("IdentitiesOnly=yes"));
  CHECK(std::adjacent_find(args.begin(), args.end(), [](const std::string& a, const std::string& b) {
          return a == "-i" && b == "/k";
        }) != args.end());
}

TEST_CASE("an ssh that ended: which failure, in one line") {
  SshForward forward{"ssh", "/k", "/kh", "tpu.n-0-abcdef", "alice", "10.0.0.2", 40001, 8265};
  const std::string mismatch =
      "@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\n";
  CHECK(ClassifySshFailure(mismatch) == SshFailure::kHostKey);
  CHECK(ClassifySshFailure("alice@10.0.0.2: Permission denied (publickey).\n") == SshFailure::kPermissionDenied);
  CHECK(ClassifySshFailure("ssh: connect to host 10.0.0.2 port 22: Connection refused\n") == SshFailure::kUnreachable);
  CHECK(ClassifySshFailure("bind [127.0.0.1]:40001: Address already in use\n") == SshFailure::kLocalPort);
  CHECK(ClassifySshFailure("something else\n") == SshFailure::kOther);

  auto error = SshFailureError(forward, mismatch);
  CHECK(error.message.find("host key mismatch") != std::string::npos);
  CHECK(error.message.find('\n') == std::string::npos);
  CHECK(SshFailureError(forward, "x: Permission denied (publickey).").message.find("permission denied") !=
        std::string::npos);
  CHECK(SshFailureError(forward, "").message.find("without a word") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::workflow
