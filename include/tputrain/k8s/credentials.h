#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/http/credential.h"
#include "tputrain/k8s/kubeconfig.h"

namespace tputrain::k8s {

// A Google OAuth2 access token (Application Default Credentials), supplied by the caller so that
// this module needs no Google code: a GKE API server accepts exactly what gke-gcloud-auth-plugin
// would hand kubectl, so tputrain serves that plugin's entries itself.
using GoogleTokenSource = std::function<core::Result<std::string>()>;

// The credential presented to one API server: a bearer token (possibly refreshed) and/or a
// client certificate. As an http::Credential it is what the cluster's transport stack sends:
// a static token as is, an exec plugin's token until its expirationTimestamp (or a 401), a
// Google token from its source (which refreshes on its own). Thread-safe.
class Credentials final : public http::Credential {
 public:
  struct Deps {
    const core::Env* env = nullptr;
    core::Clock* clock = nullptr;
    GoogleTokenSource google_token;  // empty: gke-gcloud-auth-plugin entries fail with a clear error
    // Told when the API server refused the Google token (401), so its source fetches a new one.
    std::function<void()> google_token_refused;
    // Holds every token and key read (kubeconfig, tokenFile, exec plugin) the moment it is read.
    core::Redactor* secrets = nullptr;
  };

  // Runs an exec plugin once if the kubeconfig has one (its certificate, if any, is needed
  // before the first connection).
  static core::Result<std::shared_ptr<Credentials>> Create(const ClusterAccess& access, Deps deps);

  // The bearer token, or "" when the client authenticates by certificate only.
  core::Result<std::string> Token();
  // Forgets a cached exec/Google token after a 401, so the next call gets a fresh one.
  void Invalidate() override;
  // "Authorization: Bearer <Token()>", or nothing for certificate-only users.
  core::Result<http::Headers> AuthHeaders() override;

  const std::string& client_cert_pem() const { return client_cert_pem_; }
  const std::string& client_key_pem() const { return client_key_pem_; }

 private:
  core::Result<std::string> Refresh();
  void Hold(const std::string& secret) const;

  ClusterAccess access_;
  Deps deps_;
  std::mutex mutex_;
  std::string token_;
  std::optional<std::chrono::system_clock::time_point> expiry_;
  bool cached_ = false;
  std::string client_cert_pem_;
  std::string client_key_pem_;
};

// True for the plugin GKE kubeconfigs name (gcloud writes it), and for tputrain's own
// `auth print-access-token` stanza: both are served from GoogleTokenSource.
bool IsGoogleTokenExec(const ExecConfig& exec);

// What an exec plugin printed (client.authentication.k8s.io ExecCredential status).
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry;
};

// Runs `exec` with KUBERNETES_EXEC_INFO set, as kubectl does; stderr passes through.
core::Result<ExecCredential> RunExecPlugin(const ExecConfig& exec, const ClusterAccess& cluster, const core::Env& env);

}  // namespace tputrain::k8s
