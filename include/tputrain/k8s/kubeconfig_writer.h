#pragma once

#include <string>
#include <vector>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::k8s {

// One cluster's kubeconfig entry, as `gcloud container clusters get-credentials` writes it.
struct KubeconfigEntry {
  std::string name;     // cluster, user and context name: gke_PROJECT_LOCATION_CLUSTER
  std::string server;   // https://ENDPOINT
  std::string ca_data;  // base64 PEM (masterAuth.clusterCaCertificate, verbatim)
  // The user's credential: gke-gcloud-auth-plugin (what gcloud writes), or, with --token-exec,
  // an exec stanza that runs `tputrain auth print-access-token` for the token.
  enum class Auth { kGkeGcloudAuthPlugin, kTputrainTokenExec };
  Auth auth = Auth::kGkeGcloudAuthPlugin;
  std::string tputrain_command = "tputrain";  // for kTputrainTokenExec
};

// The arguments tputrain's own exec stanza passes (an ExecCredential on stdout).
std::vector<std::string> TputrainTokenExecArgs();

// The file get-credentials writes: --kubeconfig, else the first file in KUBECONFIG, else
// ~/.kube/config (as gcloud and kubectl choose it).
std::string KubeconfigWritePath(const std::string& flag, const core::Env& env);

// Adds or replaces the cluster, user and context named `entry.name` in `path` (created with
// mode 0600 if missing; other entries are kept) and makes it the current context. The write
// is atomic (a temporary file renamed over the old one).
core::Status WriteKubeconfigEntry(const std::string& path, const KubeconfigEntry& entry);

}  // namespace tputrain::k8s
