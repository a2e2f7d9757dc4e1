#include "node_versions.h"

#include "tputrain/catalog/gke_versions.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/gcp/container/client.h"

namespace tputrain::workflow::internal {
namespace {

// The generation of a pool's machine type when it has a minimum GKE version.
const catalog::TpuGeneration* NeedsMinimum(const gcp::container::NodePoolSpec& pool) {
  auto slice = catalog::SingleHostSliceOf(pool.machine_type);
  if (!slice || slice->generation->min_gke_version.empty()) return nullptr;
  return slice->generation;
}

// "1.34" of "1.34.0-gke.2201000": the --cluster-version to suggest.
std::string MinorOf(const std::string& version) { return version.substr(0, version.find('.', version.find('.') + 1)); }

}  // namespace

core::Status CheckClusterVersion(const gcp::container::ClusterSpec& cluster,
                                 const std::vector<gcp::container::NodePoolSpec>& pools) {
  for (const auto& pool : pools) {
    const auto* generation = NeedsMinimum(pool);
    if (generation == nullptr) continue;
    const std::string& minimum = catalog::MinimumGkeVersion(*generation, cluster.autopilot);
    if (cluster.cluster_version.empty()) {
      return core::Fail(core::Error::Usage("--cluster-version: " + generation->family + " needs GKE " + minimum +
                                           " or later, and a new cluster's default version can be older: give "
                                           "--cluster-version " +
                                           MinorOf(minimum) + " (or later)"));
    }
    if (auto recent =
            catalog::CheckGkeVersion(*generation, cluster.cluster_version, cluster.autopilot, "--cluster-version");
        !recent) {
      return recent;
    }
  }
  return {};
}

core::Result<std::vector<gcp::container::NodePoolSpec>> PinNodeVersions(
    ProvisionEnv& env, const gcp::container::ClusterRef& cluster, std::vector<gcp::container::NodePoolSpec> pools) {
  std::optional<gcp::container::Cluster> read;
  for (auto& pool : pools) {
    const auto* generation = NeedsMinimum(pool);
    if (generation == nullptr || !pool.version.empty() || env.dry_run != nullptr) continue;
    if (!read) {
      gcp::container::Client client(env.transport, env.endpoints.container);
      auto got = client.GetCluster(cluster);
      if (!got) return core::Fail(got.error());
      read = std::move(*got);
    }
    const std::string& version = read->current_master_version;
    if (auto recent = catalog::CheckGkeVersion(*generation, version, read->autopilot, "--cluster"); !recent) {
      core::Error error = recent.error();
      error.message = "--cluster: " + cluster.cluster + " runs GKE " + version + "; " + generation->family + " needs " +
                      catalog::MinimumGkeVersion(*generation, read->autopilot) +
                      " or later (upgrade it, or create a cluster with --cluster-version " +
                      MinorOf(catalog::MinimumGkeVersion(*generation, read->autopilot)) + ")";
      return core::Fail(error);
    }
    pool.version = version;
  }
  return pools;
}

}  // namespace tputrain::workflow::internal
