#pragma once

#include <memory>
#include <string>
#include <vector>

#include "testing/scoped_process.h"
#include "tputrain/core/clock.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/discovery.h"

namespace tputrain::testing {

// A real etcd + kube-apiserver (built by scripts/peers/k8s.sh) on free loopback
// ports, with a throwaway CA made by the openssl CLI, static bearer tokens (an admin in
// system:masters and a user with no rights) and RBAC. Nothing else runs unless a test starts the
// controllers beside it (control_plane.h). Both processes are stopped (and the directory removed) on destruction; they
// also die with the test process (setpriv --pdeathsig).
class ApiServer {
 public:
  // One per test binary, started on first use.
  static ApiServer& Shared();

  ApiServer();
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  const std::string& server() const { return server_; }  // https://127.0.0.1:PORT
  const std::string& ca_pem() const { return ca_pem_; }
  const std::string& other_ca_pem() const { return other_ca_pem_; }  // a CA that signed nothing here
  const std::string& admin_token() const { return admin_token_; }
  const std::string& nobody_token() const { return nobody_token_; }
  // Accepted like a Google access token would be on GKE (what gke-gcloud-auth-plugin hands out).
  const std::string& google_token() const { return google_token_; }
  const std::string& client_cert_pem() const { return client_cert_pem_; }  // CN=cert-admin, O=system:masters
  const std::string& client_key_pem() const { return client_key_pem_; }
  const std::string& dir() const { return dir_; }

  // A kubeconfig with one context `test` (token or client certificate auth).
  std::string KubeconfigText(const std::string& token, const std::string& ns = "default",
                             bool client_cert = false) const;
  std::string WriteKubeconfig(const std::string& file_name, const std::string& token,
                              const std::string& ns = "default") const;

  // An admin client, for the test's own reads and for playing the operators.
  k8s::Client& admin();
  k8s::Discovery& discovery();

  // Kills the API server (connections drop) and starts it again on the same port and etcd.
  void RestartApiServer();
  // Makes `tokens` (beside the fixture's own) the only extra admin tokens the server accepts, by
  // rewriting its token file and restarting it: a token left out is revoked.
  void SetExtraAdminTokens(const std::vector<std::string>& tokens);

  // Applies the project's CRDs (data/crds) once.
  void EnsureCrds();
  // A fresh namespace (with a `default` ServiceAccount, which nothing else would create).
  std::string NewNamespace(const std::string& prefix);

 private:
  void StartApiServer();
  void WriteTokenFile(const std::vector<std::string>& extra_admin_tokens);
  void WaitReady();

  std::string dir_;
  std::string server_;
  int api_port_ = 0;
  int etcd_port_ = 0;
  std::string ca_pem_;
  std::string other_ca_pem_;
  std::string admin_token_;
  std::string nobody_token_;
  std::string google_token_;
  std::string client_cert_pem_;
  std::string client_key_pem_;
  std::unique_ptr<ScopedProcess> etcd_;
  std::unique_ptr<ScopedProcess> apiserver_;
  std::shared_ptr<k8s::Credentials> admin_credentials_;
  std::unique_ptr<http::Transport> transport_;
  std::unique_ptr<k8s::Client> admin_;
  std::unique_ptr<k8s::Discovery> discovery_;
  bool crds_applied_ = false;
  int namespaces_ = 0;
};

// ${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/k8s
std::string K8sPeerDir();
std::string ReadTextFile(const std::string& path);
void WriteTextFile(const std::string& path, const std::string& text);

}  // namespace tputrain::testing
