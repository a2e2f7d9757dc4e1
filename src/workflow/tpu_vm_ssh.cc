#include "tputrain/workflow/tpu_vm_ssh.h"

#include <cctype>
#include <regex>
#include <sstream>
#include <string_view>

namespace tputrain::workflow {
namespace {

// [A-Za-z0-9+/]+={0,2}, checked by hand: the blob is the server's, and std::regex recurses once per
// character of a `+`.
bool IsBase64Blob(std::string_view blob) {
  const size_t end = blob.find_last_not_of('=');
  if (end == std::string_view::npos || blob.size() - end - 1 > 2) return false;
  for (size_t i = 0; i <= end; ++i) {
    const char c = blob[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') return false;
  }
  return true;
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The last non-empty line ssh printed: its own words for a failure this file does not know.
std::string LastLine(const std::string& log) {
  std::istringstream stream(log);
  std::string last;
  for (std::string line; std::getline(stream, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

core::Result<TpuVmVia> ParseTpuVmVia(const std::string& text) {
  if (text == "iap") return TpuVmVia::kIap;
  if (text == "ssh") return TpuVmVia::kSsh;
  return core::Fail(core::Error::Usage("--via: expected one of iap,ssh, got '" + text + "'"));
}

core::Result<std::string> SshUserName(const std::string& user) {
  std::string lower;
  for (char c : user) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::regex kName("[a-z_][a-z0-9_.-]{0,31}");
  if (std::regex_match(lower, kName)) return lower;
  return core::Fail(core::Error::Usage("the ssh user '" + user +
                                       "' (from $USER) is no login name the guest agent accepts: set USER to one"));
}

core::Result<std::string> SshKeysEntry(const std::string& user, const std::string& public_key_text) {
  auto words = Words(public_key_text);
  if (words.size() < 2 || (words[0].rfind("ssh-", 0) != 0 && words[0].rfind("ecdsa-", 0) != 0)) {
    return core::Fail(core::Error::Make(core::ErrorKind::kInvalidArgument,
                                        "not an OpenSSH public key (expected 'TYPE BASE64 [COMMENT]')"));
  }
  return user + ":" + words[0] + " " + words[1] + " " + user;
}

std::optional<std::string> MergeSshKeys(const std::string& existing, const std::string& entry) {
  // The key is "USER:TYPE BLOB"; the comment after it may differ and still grant the same key.
  auto words = Words(entry);
  const std::string granted = words.size() >= 2 ? words[0] + " " + words[1] : entry;
  std::istringstream lines(existing);
  for (std::string line; std::getline(lines, line);) {
    auto have = Words(line);
    if (have.size() >= 2 && have[0] + " " + have[1] == granted) return std::nullopt;
  }
  if (existing.empty()) return entry;
  return existing + (existing.back() == '\n' ? "" : "\n") + entry;
}

std::string TpuVmHostKeyAlias(const std::string& node_id, int worker, const std::string& host_key) {
  std::string alias = "tpu." + node_id + "-" + std::to_string(worker);
  if (host_key.size() >= 6) alias += "-" + host_key.substr(host_key.size() - 6);
  return alias;
}

core::Result<std::string> KnownHostsLine(const std::string& alias, const std::string& key_type,
                                         const std::string& host_key) {
  auto words = Words(host_key);
  std::string type = key_type, blob;
  if (words.size() == 1) {
    blob = words[0];
  } else if (words.size() >= 2) {
    type = words[0];
    blob = words[1];
  }
  if (type != key_type || !IsBase64Blob(blob)) {
    return core::Fail(core::Error::Make(
        core::ErrorKind::kInvalidArgument,
        "guest attribute " + std::string(kHostKeysNamespace) + "/" + key_type + " holds no " + key_type + " key"));
  }
  return alias + " " + type + " " + blob;
}

core::Result<std::string> TpuVmWorkerAddress(const nlohmann::json& node, const std::string& node_id, int worker,
                                             bool internal_ip) {
  const auto endpoints = node.value("networkEndpoints", nlohmann::json::array());
  if (worker < 0 || static_cast<size_t>(worker) >= endpoints.size()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "TPU VM " + node_id + " has no worker " + std::to_string(worker) + " (" +
                                            std::to_string(endpoints.size()) + " network endpoints)"));
  }
  const auto& endpoint = endpoints[static_cast<size_t>(worker)];
  const std::string internal = endpoint.value("ipAddress", "");
  const std::string external = endpoint.value("accessConfig", nlohmann::json::object()).value("externalIp", "");
  if (internal_ip) {
    if (!internal.empty()) return internal;
  } else if (!external.empty()) {
    return external;
  }
  if (internal_ip || internal.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "worker " + std::to_string(worker) + " of " + node_id + " reports no address"));
  }
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                      "worker " + std::to_string(worker) + " of " + node_id +
                                          " has no external IP (only " + internal +
                                          "): pass --internal-ip from a machine on its VPC, or --via iap"));
}

std::vector<std::string> SshForwardArgs(const SshForward& forward) {
  return {forward.ssh, "-N", "-L",
          "127.0.0.1:" + std::to_string(forward.local_port) + ":localhost:" + std::to_string(forward.remote_port), "-i",
          forward.key_file, "-o", "IdentitiesOnly=yes",
          // Never a prompt: a missing key or a changed host is a failure to report, not a question.
          "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-o", "StrictHostKeyChecking=yes", "-o",
          "UserKnownHostsFile=" + forward.known_hosts, "-o", "GlobalKnownHostsFile=/dev/null", "-o",
          "HostKeyAlias=" + forward.host_key_alias, "-o", "CheckHostIP=no", "-o", "ConnectTimeout=20", "-o",
          "ServerAliveInterval=30", "-o", "LogLevel=ERROR", "-p", "22", forward.user + "@" + forward.address};
}

SshFailure ClassifySshFailure(const std::string& log) {
  if (Contains(log, "Host key verification failed") || Contains(log, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
      Contains(log, "host key is known for") || Contains(log, "Host key for")) {
    return SshFailure::kHostKey;
  }
  if (Contains(log, "Permission denied")) return SshFailure::kPermissionDenied;
  if (Contains(log, "cannot listen to port") || Contains(log, "Could not request local forwarding") ||
      Contains(log, "Address already in use")) {
    return SshFailure::kLocalPort;
  }
  if (Contains(log, "Connection refused") || Contains(log, "timed out") || Contains(log, "No route to host") ||
      Contains(log, "Network is unreachable") || Contains(log, "Connection closed by") ||
      Contains(log, "Connection reset")) {
    return SshFailure::kUnreachable;
  }
  return SshFailure::kOther;
}

core::Error SshFailureError(const SshForward& forward, const std::string& log) {
  const std::string target = forward.user + "@" + forward.address;
  switch (ClassifySshFailure(log)) {
    case SshFailure::kHostKey:
      return core::Error::Make(core::ErrorKind::kPermissionDenied,
                               "ssh " + target +
                                   ": host key mismatch: the host's key is not the one its guest "
                                   "attribute hostkeys/ssh-ed25519 published (" +
                                   forward.host_key_alias + "); refused");
    case SshFailure::kPermissionDenied:
      return core::Error::Make(core::ErrorKind::kPermissionDenied,
                               "ssh " + target + ": permission denied for " + forward.key_file +
                                   " (its public key is in the node's ssh-keys metadata; OS Login or a guest agent "
                                   "that has not read it yet refuses it)");
    case SshFailure::kLocalPort:
      return core::Error::Make(core::ErrorKind::kUnavailable,
                               "ssh " + target + ": cannot listen on 127.0.0.1:" + std::to_string(forward.local_port) +
                                   " (in use?): " + LastLine(log));
    case SshFailure::kUnreachable:
      return core::Error::Make(core::ErrorKind::kUnavailable, "ssh " + target + ": cannot reach port 22 (" +
                                                                  LastLine(log) +
                                                                  "): a firewall rule allowing tcp:22, or --via iap");
    case SshFailure::kOther:
      break;
  }
  std::string last = LastLine(log);
  return core::Error::Make(core::ErrorKind::kUnavailable,
                           "ssh " + target + " ended: " + (last.empty() ? "without a word" : last));
}

}  // namespace tputrain::workflow
