// How cleanup reaches what the run ledger names outside Google's APIs, through the composition root.
#include "tputrain/workflow/cluster_access.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_reach.h"

namespace tputrain::workflow {
namespace {

// The kubeconfig flags or the GKE cluster an access record stands for.
core::Result<KubeAccessFlags> FlagsOf(const state::AccessRecord& access) {
  KubeAccessFlags flags;
  if (access.IsGke()) {
    auto ref = ClusterRefFromName(access.gke_cluster);
    if (!ref) return core::Fail(ref.error());
    flags.gke_ref = *ref;
    return flags;
  }
  flags.kubeconfig = access.kubeconfig;
  flags.context = access.context;
  return flags;
}

RayJobsAccess Keep(std::unique_ptr<RaySession> session) {
  std::shared_ptr<RaySession> shared = std::move(session);
  return RayJobsAccess{shared, shared->client.get()};
}

}  // namespace

CleanupReach RecordedReach(Root& root) {
  CleanupReach reach;
  reach.connect_cluster = [&root](const state::AccessRecord& access) -> core::Result<std::unique_ptr<k8s::Connection>> {
    auto flags = FlagsOf(access);
    if (!flags) return core::Fail(flags.error());
    return ConnectCluster(root, *flags);
  };
  reach.ray_jobs = [&root](const RayJobTarget& target) -> core::Result<RayJobsAccess> {
    if (target.OnTpuVm()) {
      TpuVmReach way;
      way.via = target.via;
      if (way.via != "iap" && way.via != "ssh") {
        return core::Fail(core::Error::Usage("ray-job: details.via: expected iap or ssh, got " + way.via));
      }
      auto session = ConnectTpuVmRayAt(root, target.tpu_vm, way, {});
      if (!session) return core::Fail(session.error());
      return Keep(std::move(*session));
    }
    if (target.OnCluster()) {
      auto access = FlagsOf(target.access);
      if (!access) return core::Fail(access.error());
      RayClusterFlags flags{target.raycluster, *access};
      flags.access.ns = target.ns;
      auto session = ConnectRayCluster(root, flags, {});
      if (!session) return core::Fail(session.error());
      return Keep(std::move(*session));
    }
    ray::ConnectionFlags flags;
    flags.address = target.address;
    auto options = ResolveRayClient(root, flags);
    if (!options) return core::Fail(options.error());
    auto session = root.Ray(std::move(*options));
    if (!session) return core::Fail(session.error());
    return Keep(std::move(*session));
  };
  return reach;
}

}  // namespace tputrain::workflow
