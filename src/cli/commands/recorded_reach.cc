#include "commands/recorded_reach.h"

#include "commands/k8s_access.h"
#include "commands/ray_common.h"
#include "stack.h"
#include "tputrain/workflow/cluster_access.h"

namespace tputrain::cli {
namespace {

// The kubeconfig flags or the GKE cluster an access record stands for.
core::Result<KubeAccessFlags> FlagsOf(const state::AccessRecord& access) {
  KubeAccessFlags flags;
  if (access.IsGke()) {
    auto ref = workflow::ClusterRefFromName(access.gke_cluster);
    if (!ref) return core::Fail(ref.error());
    flags.gke_ref = *ref;
    return flags;
  }
  flags.kubeconfig = access.kubeconfig;
  flags.context = access.context;
  return flags;
}

workflow::RayJobsAccess Keep(std::unique_ptr<RaySession> session) {
  std::shared_ptr<RaySession> shared = std::move(session);
  return workflow::RayJobsAccess{shared, shared->client.get()};
}

}  // namespace

workflow::CleanupReach RecordedReach(Context& context) {
  workflow::CleanupReach reach;
  reach.connect_cluster =
      [&context](const state::AccessRecord& access) -> core::Result<std::unique_ptr<k8s::Connection>> {
    auto flags = FlagsOf(access);
    if (!flags) return core::Fail(flags.error());
    if (flags->gke_ref) return ConnectGkeCluster(*flags->gke_ref, "", context);
    return ConnectCluster(*flags, context);
  };
  reach.ray_jobs = [&context](const workflow::RayJobTarget& target) -> core::Result<workflow::RayJobsAccess> {
    if (target.OnTpuVm()) {
      TpuVmReach way;
      way.via = target.via;
      if (way.via != "iap" && way.via != "ssh") {
        return core::Fail(core::Error::Usage("ray-job: details.via: expected iap or ssh, got " + way.via));
      }
      auto session = ConnectTpuVmRayAt(target.tpu_vm, way, {}, context);
      if (!session) return core::Fail(session.error());
      return Keep(std::move(*session));
    }
    if (target.OnCluster()) {
      auto access = FlagsOf(target.access);
      if (!access) return core::Fail(access.error());
      RayClusterFlags flags{target.raycluster, *access};
      flags.access.ns = target.ns;
      auto session = ConnectRayCluster(flags, {}, context);
      if (!session) return core::Fail(session.error());
      return Keep(std::move(*session));
    }
    ray::ConnectionFlags flags;
    flags.address = target.address;
    auto options = ResolveRayClient(flags, context);
    if (!options) return core::Fail(options.error());
    auto session = context.stack().Ray(std::move(*options));
    if (!session) return core::Fail(session.error());
    return Keep(std::move(*session));
  };
  return reach;
}

}  // namespace tputrain::cli
