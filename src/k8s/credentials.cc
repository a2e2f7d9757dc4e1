#include "tputrain/k8s/credentials.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::k8s {
namespace {

namespace fs = std::filesystem;

core::Error ExecError(const ExecConfig& exec, const std::string& message) {
  auto error =
      core::Error::Make(core::ErrorKind::kUnauthenticated, "credential plugin " + exec.command + ": " + message);
  error.where = "kubeconfig exec";
  return error;
}

std::string FindExecutable(const std::string& command, const std::string& base_dir, const core::Env& env) {
  if (command.find('/') != std::string::npos) {
    if (fs::path(command).is_absolute() || base_dir.empty()) return command;
    return (fs::path(base_dir) / command).string();
  }
  std::string path = env.GetOr("PATH", "/usr/local/bin:/usr/bin:/bin");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty()) {
      auto candidate = fs::path(dir) / command;
      if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    start = end + 1;
  }
  return "";
}

// "2026-11-23T01:02:03Z" (RFC 3339, UTC, optional fraction).
std::optional<std::chrono::system_clock::time_point> ParseTimestamp(const std::string& text) {
  std::tm tm{};
  if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace

bool IsGoogleTokenExec(const ExecConfig& exec) {
  std::string base = fs::path(exec.command).filename().string();
  if (base == "gke-gcloud-auth-plugin" || base == "gke-gcloud-auth-plugin.exe") return true;
  return base == "tputrain" && exec.args.size() >= 2 && exec.args[0] == "auth" && exec.args[1] == "print-access-token";
}

core::Result<ExecCredential> RunExecPlugin(const ExecConfig& exec, const ClusterAccess& cluster, const core::Env& env) {
  std::string program = FindExecutable(exec.command, exec.base_dir, env);
  if (program.empty() || access(program.c_str(), X_OK) != 0) {
    std::string hint = exec.install_hint.empty() ? "" : " (" + exec.install_hint + ")";
    return core::Fail(ExecError(exec, "not found on PATH" + hint));
  }
  nlohmann::json info = {
      {"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", {{"interactive", false}}}};
  if (exec.provide_cluster_info) {
    nlohmann::json cluster_info = {{"server", cluster.server}};
    if (!cluster.ca_pem.empty()) cluster_info["certificate-authority-data"] = EncodeBase64(cluster.ca_pem);
    info["spec"]["cluster"] = cluster_info;
  }
  core::Env child_env = env;
  for (const auto& [name, value] : exec.env) child_env.Set(name, value);
  child_env.Set("KUBERNETES_EXEC_INFO", info.dump());
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : child_env.vars()) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return core::Fail(ExecError(exec, "cannot create a pipe"));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    return core::Fail(ExecError(exec, "cannot start it"));
  }
  // Read to the end whatever it prints, so it never blocks on a full pipe, but keep at most an
  // ExecCredential's worth: a token, a certificate and a key fit in far less.
  constexpr size_t kMaxOutputBytes = core::kMiB;
  std::string output;
  bool too_long = false;
  char buffer[4096];
  ssize_t n;
  while ((n = read(out_pipe[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n <= 0) continue;
    if (output.size() + static_cast<size_t>(n) > kMaxOutputBytes) too_long = true;
    if (!too_long) output.append(buffer, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return core::Fail(ExecError(exec, "exited with status " + std::to_string(code)));
  }
  if (too_long) return core::Fail(ExecError(exec, "printed more than 1 MiB, which no ExecCredential needs"));
  nlohmann::json parsed = core::ParseJson(output, "").value_or(nullptr);
  // Never quote the output in an error: it may hold the token.
  if (!parsed.is_object() || !parsed.contains("status") || !parsed["status"].is_object()) {
    return core::Fail(ExecError(exec, "did not print an ExecCredential with a status"));
  }
  const auto& st = parsed["status"];
  ExecCredential credential;
  credential.token = core::StringAt(st, "token");
  credential.client_cert_pem = core::StringAt(st, "clientCertificateData");
  credential.client_key_pem = core::StringAt(st, "clientKeyData");
  if (auto expiry = core::StringAt(st, "expirationTimestamp"); !expiry.empty())
    credential.expiry = ParseTimestamp(expiry);
  if (credential.token.empty() && credential.client_cert_pem.empty()) {
    return core::Fail(ExecError(exec, "returned neither a token nor a client certificate"));
  }
  return credential;
}

core::Result<std::shared_ptr<Credentials>> Credentials::Create(const ClusterAccess& access, Deps deps) {
  auto credentials = std::shared_ptr<Credentials>(new Credentials());
  credentials->access_ = access;
  credentials->deps_ = std::move(deps);
  credentials->client_cert_pem_ = access.client_cert_pem;
  credentials->client_key_pem_ = access.client_key_pem;
  credentials->Hold(access.token);
  credentials->Hold(access.client_key_pem);
  if (access.exec && !IsGoogleTokenExec(*access.exec)) {
    auto first = RunExecPlugin(*access.exec, access, *credentials->deps_.env);
    if (!first) return core::Fail(first.error());
    credentials->Hold(first->token);
    credentials->Hold(first->client_key_pem);
    if (!first->client_cert_pem.empty()) {
      credentials->client_cert_pem_ = first->client_cert_pem;
      credentials->client_key_pem_ = first->client_key_pem;
    }
    credentials->token_ = first->token;
    credentials->expiry_ = first->expiry;
    credentials->cached_ = true;
  }
  return credentials;
}

core::Result<std::string> Credentials::Token() {
  std::lock_guard lock(mutex_);
  if (!access_.exec) return access_.token;
  if (IsGoogleTokenExec(*access_.exec)) return Refresh();  // the Google source caches on its own
  bool expired = expiry_ && deps_.clock != nullptr && deps_.clock->WallNow() + std::chrono::seconds(10) >= *expiry_;
  if (cached_ && !expired) return token_;
  return Refresh();
}

core::Result<http::Headers> Credentials::AuthHeaders() {
  auto token = Token();
  if (!token) return core::Fail(token.error());
  http::Headers headers;
  if (!token->empty()) headers.emplace_back("Authorization", "Bearer " + *token);
  return headers;
}

void Credentials::Invalidate() {
  std::lock_guard lock(mutex_);
  cached_ = false;
  if (access_.exec && IsGoogleTokenExec(*access_.exec) && deps_.google_token_refused) deps_.google_token_refused();
}

void Credentials::Hold(const std::string& secret) const {
  if (deps_.secrets != nullptr && !secret.empty()) deps_.secrets->Hold(secret);
}

core::Result<std::string> Credentials::Refresh() {
  const ExecConfig& exec = *access_.exec;
  if (IsGoogleTokenExec(exec)) {
    if (!deps_.google_token) {
      return core::Fail(ExecError(exec,
                                  "this context authenticates with Google credentials, which are not "
                                  "available here (run 'gcloud auth application-default login')"));
    }
    auto token = deps_.google_token();
    if (!token) return core::Fail(token.error());
    token_ = *token;
    expiry_.reset();  // the Google source caches and refreshes on its own
    cached_ = true;
    return token_;
  }
  auto credential = RunExecPlugin(exec, access_, *deps_.env);
  if (!credential) return core::Fail(credential.error());
  Hold(credential->token);
  Hold(credential->client_key_pem);
  token_ = credential->token;
  expiry_ = credential->expiry;
  cached_ = true;
  return token_;
}

}  // namespace tputrain::k8s
