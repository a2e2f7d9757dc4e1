#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tputrain/core/base64.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::k8s {

// A kubeconfig `users[].user.exec` entry (client.authentication.k8s.io).
struct ExecConfig {
  std::string api_version = "client.authentication.k8s.io/v1beta1";
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string base_dir;  // the kubeconfig's directory: a relative command is resolved from it
};

// Everything needed to reach one API server, resolved from a kubeconfig context (or built
// from a GKE cluster's endpoint and CA). Holds secrets: never print it.
struct ClusterAccess {
  std::string context;  // the kubeconfig context name, for messages
  std::string server;   // https://host[:port]
  std::string ca_pem;   // empty: the system trust store
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;               // a static bearer token (from `token` or `tokenFile`)
  std::optional<ExecConfig> exec;  // a credential plugin
  std::string default_namespace = "default";
};

struct KubeconfigOptions {
  std::string kubeconfig;  // --kubeconfig: one file, overrides KUBECONFIG
  std::string context;     // --context: overrides current-context
  // --insecure-skip-tls-verify: accept a context that disables TLS verification.
  bool allow_insecure = false;
};

// Loads the kubeconfig the way kubectl does: --kubeconfig, else every file in KUBECONFIG
// (':'-separated; the first file to name a cluster, user or context wins, and the first
// current-context set wins), else ~/.kube/config. Relative file paths are resolved from the
// file that names them. Errors name the file and the field.
core::Result<ClusterAccess> LoadClusterAccess(const KubeconfigOptions& options, const core::Env& env);
// Whether kubectl's lookup (KUBECONFIG's entries, else ~/.kube/config) finds a kubeconfig file.
bool DefaultKubeconfigExists(const core::Env& env);

// Parses one kubeconfig document (for tests and for LoadClusterAccess).
core::Result<ClusterAccess> ClusterAccessFromKubeconfigText(const std::string& text, const std::string& base_dir,
                                                            const KubeconfigOptions& options);

// *-data fields are standard base64: core::EncodeBase64 / core::DecodeBase64. The name stays
// visible here for the callers written against k8s::EncodeBase64.
using core::EncodeBase64;

}  // namespace tputrain::k8s
