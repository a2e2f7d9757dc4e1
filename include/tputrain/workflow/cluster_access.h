#pragma once

#include <string>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/kubeconfig.h"

// Reaching a GKE cluster's API server without a kubeconfig: what `gcloud container clusters
// get-credentials` writes, resolved in memory instead.
namespace tputrain::workflow {

// clusters.get gives the endpoint and the CA; the credential is the Google access token, as
// gke-gcloud-auth-plugin hands it to kubectl (the access carries that plugin's exec stanza, which
// k8s::Credentials serves from tputrain's own Application Default Credentials).
core::Result<k8s::ClusterAccess> GkeClusterAccess(http::Transport& transport, const std::string& container_endpoint,
                                                  const gcp::container::ClusterRef& ref);

// `cluster get-credentials`: the cluster's kubeconfig entry (gke_P_L_C, its endpoint and CA) added
// to the kubeconfig at `kubeconfig_flag` (empty: KUBECONFIG's first file, else ~/.kube/config) and
// made current. `token_exec`: the user runs `tputrain auth print-access-token` instead of
// gke-gcloud-auth-plugin. `dry_run`: the cluster is read, the entry decided, nothing written.
struct KubeconfigWritten {
  std::string context;
  std::string path;
  std::string server;
};
core::Result<KubeconfigWritten> WriteClusterCredentials(http::Transport& transport,
                                                        const std::string& container_endpoint,
                                                        const gcp::container::ClusterRef& ref,
                                                        const std::string& kubeconfig_flag, const core::Env& env,
                                                        bool token_exec, bool dry_run);

// "projects/P/locations/L/clusters/C" (a ledger access record) back into its parts.
core::Result<gcp::container::ClusterRef> ClusterRefFromName(const std::string& name);

}  // namespace tputrain::workflow
