#include "tputrain/workflow/submit_reach.h"

#include "tputrain/workflow/image_build.h"
#include "tputrain/workflow/ray_jobs.h"

namespace tputrain::workflow {

SubmitEnv SubmitEnvOf(Root& root, const SubmitReach& reach, SubmitConnections& kept) {
  SubmitEnv env{root.runtime(), {}, {}, {}, {}};
  auto follow = [&root, &kept](std::string reattach) -> FollowFunction {
    return [&root, &kept, reattach](ray::JobsClient& client, const std::string& id,
                                    const std::function<void(std::string_view)>& on_text) {
      return FollowJob(root, client, *kept.websocket, id, on_text, reattach);
    };
  };
  env.connect_direct = [reach, &root, &kept, follow]() -> core::Result<DirectRay> {
    core::Result<std::unique_ptr<RaySession>> session = core::Fail(core::Error::Internal("not connected"));
    std::optional<RayJobTarget> record_as;
    if (reach.tpu_vm_node) {
      session = ConnectTpuVmRayAt(root, *reach.tpu_vm_node, reach.tpu_vm.reach, reach.connection);
      if (session) record_as = RayJobTarget::OnTpuVmRay(*reach.tpu_vm_node, reach.tpu_vm.reach.via);
    } else if (!reach.tpu_vm.name.empty()) {
      session = ConnectTpuVmRay(root, reach.tpu_vm, reach.connection);
      // The node, not the tunnel's loopback port: cleanup opens a tunnel of its own.
      if (auto node = TpuVmRayNode(root, reach.tpu_vm); session && node) {
        record_as = RayJobTarget::OnTpuVmRay(*node, reach.tpu_vm.reach.via);
      }
    } else {
      auto client_options = ResolveRayClient(root, reach.connection);
      if (!client_options) return core::Fail(client_options.error());
      session = root.Ray(std::move(*client_options));
    }
    if (!session) return core::Fail(session.error());
    kept.ray = std::move(*session);
    kept.websocket = std::move(kept.ray->websocket);
    std::string reattach;
    if (reach.tpu_vm_node) {
      reattach = "--tpu-vm " + reach.tpu_vm_node->node + " --zone " + reach.tpu_vm_node->zone;
    } else if (!reach.tpu_vm.name.empty()) {
      reattach = "--tpu-vm " + reach.tpu_vm.name;
    }
    return DirectRay{kept.ray->client.get(), follow(reattach), record_as};
  };
  env.connect_cluster = [reach, &root, &kept, follow](const std::string& raycluster) -> core::Result<ClusterRay> {
    auto connection = ConnectCluster(root, reach.access);
    if (!connection) return core::Fail(connection.error());
    kept.kube = std::move(*connection);
    k8s::Connection& kube = *kept.kube;
    kept.websocket = root.WebSocketFor(&kube);
    kept.cluster.reset(new ClusterSubmitEnv{
        root.runtime(), *kube.client, *kube.discovery, AccessRecordOf(root, reach.access, kube), {}, {}});
    kept.cluster->make_ray_client =
        [reach, &root, &kube](const k8s::ProxyEndpoint& endpoint) -> core::Result<std::unique_ptr<ray::JobsClient>> {
      auto client_options = RayThroughProxy(root, reach.connection, endpoint);
      if (!client_options) return core::Fail(client_options.error());
      // The cluster's transport stack: its CA, its client certificate, its refreshed credential.
      return std::make_unique<ray::JobsClient>(*kube.transport, root.sleeper(), std::move(*client_options));
    };
    // Re-attach through the RayCluster, not the proxy URL that needs the cluster's credential.
    RayHeadFlags head;
    head.raycluster = {raycluster, reach.access};
    return ClusterRay{kept.cluster.get(), follow(ReattachFlags(root, head))};
  };
  env.open_ledger = [reach, &root]() -> core::Result<LedgerRecorder> {
    state::LedgerStore& store = root.Ledger(reach.ledger.state_dir);
    auto run = store.ResolveRun(reach.ledger.run_id, root.env(), /*create=*/true);
    if (!run) return core::Fail(run.error());
    return LedgerRecorder{&store, *run};
  };
  env.last_built_image = [reach, &root]() -> std::string {
    state::LedgerStore& store = root.Ledger(reach.ledger.state_dir);
    // Read only (ResolveRun would make the state directory): a dry run writes nothing.
    std::string run = reach.ledger.run_id.empty() ? root.env().GetOr("TPUTRAIN_RUN", "") : reach.ledger.run_id;
    if (auto current = store.CurrentRun(); run.empty() && current) run = *current;
    if (run.empty()) return "";
    auto ledger = store.Load(run);
    return ledger ? LastBuiltImage(*ledger) : "";
  };
  return env;
}

}  // namespace tputrain::workflow
