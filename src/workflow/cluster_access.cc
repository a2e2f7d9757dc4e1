#include "tputrain/workflow/cluster_access.h"

#include "tputrain/core/base64.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/k8s/kubeconfig_writer.h"

namespace tputrain::workflow {

namespace {

core::Result<gcp::container::Cluster> ReachableCluster(http::Transport& transport,
                                                       const std::string& container_endpoint,
                                                       const gcp::container::ClusterRef& ref) {
  auto cluster = gcp::container::Client(transport, container_endpoint).GetCluster(ref);
  if (!cluster) return core::Fail(cluster.error());
  if (cluster->endpoint.empty()) {
    return core::Fail(core::Error::Make(
        core::ErrorKind::kFailedPrecondition,
        "cluster " + ref.cluster + " has no endpoint yet (status " + cluster->status + "); wait until it is RUNNING"));
  }
  return cluster;
}

std::string ServerUrl(const gcp::container::Cluster& cluster) {
  return cluster.endpoint.rfind("http", 0) == 0 ? cluster.endpoint : "https://" + cluster.endpoint;
}

}  // namespace

core::Result<k8s::ClusterAccess> GkeClusterAccess(http::Transport& transport, const std::string& container_endpoint,
                                                  const gcp::container::ClusterRef& ref) {
  auto cluster = ReachableCluster(transport, container_endpoint, ref);
  if (!cluster) return core::Fail(cluster.error());
  k8s::ClusterAccess access;
  access.context = ref.KubeContextName();
  access.server = ServerUrl(*cluster);
  if (!cluster->ca_certificate.empty()) {
    auto pem = core::DecodeBase64(cluster->ca_certificate);
    if (!pem) return core::Fail(core::Error::Usage("masterAuth.clusterCaCertificate: " + pem.error().message));
    access.ca_pem = *pem;
  }
  k8s::ExecConfig plugin;
  plugin.command = "gke-gcloud-auth-plugin";
  plugin.provide_cluster_info = true;
  access.exec = plugin;
  return access;
}

core::Result<KubeconfigWritten> WriteClusterCredentials(http::Transport& transport,
                                                        const std::string& container_endpoint,
                                                        const gcp::container::ClusterRef& ref,
                                                        const std::string& kubeconfig_flag, const core::Env& env,
                                                        bool token_exec, bool dry_run) {
  auto cluster = ReachableCluster(transport, container_endpoint, ref);
  if (!cluster) return core::Fail(cluster.error());
  k8s::KubeconfigEntry entry;
  entry.name = ref.KubeContextName();
  entry.server = ServerUrl(*cluster);
  entry.ca_data = cluster->ca_certificate;
  if (token_exec) entry.auth = k8s::KubeconfigEntry::Auth::kTputrainTokenExec;
  std::string path = k8s::KubeconfigWritePath(kubeconfig_flag, env);
  if (dry_run) return KubeconfigWritten{entry.name, path, entry.server};
  if (auto written = k8s::WriteKubeconfigEntry(path, entry); !written) return core::Fail(written.error());
  return KubeconfigWritten{entry.name, path, entry.server};
}

core::Result<gcp::container::ClusterRef> ClusterRefFromName(const std::string& name) {
  gcp::container::ClusterRef ref{core::SegmentAfter(name, "projects"), core::SegmentAfter(name, "locations"),
                                 core::SegmentAfter(name, "clusters")};
  if (ref.project.empty() || ref.location.empty() || ref.cluster.empty() ||
      name != "projects/" + ref.project + "/locations/" + ref.location + "/clusters/" + ref.cluster) {
    return core::Fail(
        core::Error::Usage("expected a cluster name projects/P/locations/L/clusters/C, got '" + name + "'"));
  }
  return ref;
}

}  // namespace tputrain::workflow
