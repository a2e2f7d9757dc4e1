#include "commands/submit_env.h"

#include "commands/ray_common.h"
#include "tputrain/workflow/image_build.h"

namespace tputrain::cli {

workflow::SubmitEnv MakeSubmitEnv(const SubmitFlags& options, Context& context, SubmitConnections& kept) {
  workflow::SubmitEnv env{context.stack().runtime(), {}, {}, {}, {}};
  auto follow = [&context, &kept](std::string reattach) -> workflow::FollowFunction {
    return [&context, &kept, reattach](ray::JobsClient& client, const std::string& id,
                                       const std::function<void(std::string_view)>& on_text) {
      return FollowJob(context, client, id, on_text, 0, *kept.websocket, reattach);
    };
  };
  env.connect_direct = [options, &context, &kept, follow]() -> core::Result<workflow::DirectRay> {
    core::Result<std::unique_ptr<RaySession>> session = core::Fail(core::Error::Internal("not connected"));
    std::optional<workflow::RayJobTarget> record_as;
    if (!options.tpu_vm.name.empty()) {
      session = ConnectTpuVmRay(options.tpu_vm, options.connection, context);
      // The node, not the tunnel's loopback port: cleanup opens a tunnel of its own.
      if (auto node = TpuVmRayNode(options.tpu_vm, context); session && node) {
        record_as = workflow::RayJobTarget::OnTpuVmRay(*node, options.tpu_vm.reach.via);
      }
    } else {
      auto client_options = ResolveRayClient(options.connection, context);
      if (!client_options) return core::Fail(client_options.error());
      session = context.stack().Ray(std::move(*client_options));
    }
    if (!session) return core::Fail(session.error());
    kept.ray = std::move(*session);
    kept.websocket = std::move(kept.ray->websocket);
    return workflow::DirectRay{kept.ray->client.get(),
                               follow(options.tpu_vm.name.empty() ? "" : "--tpu-vm " + options.tpu_vm.name), record_as};
  };
  env.connect_cluster = [options, &context, &kept,
                         follow](const std::string& raycluster) -> core::Result<workflow::ClusterRay> {
    auto connection = ConnectCluster(options.access, context);
    if (!connection) return core::Fail(connection.error());
    kept.kube = std::move(*connection);
    k8s::Connection& kube = *kept.kube;
    Stack& stack = context.stack();
    kept.websocket = stack.WebSocketFor(&kube);
    kept.cluster.reset(new workflow::ClusterSubmitEnv{
        stack.runtime(), *kube.client, *kube.discovery, AccessRecordOf(options.access, kube, context), {}, {}});
    kept.cluster->make_ray_client =
        [options, &context,
         &kube](const k8s::ProxyEndpoint& endpoint) -> core::Result<std::unique_ptr<ray::JobsClient>> {
      auto client_options = RayThroughProxy(options.connection, endpoint, context);
      if (!client_options) return core::Fail(client_options.error());
      // The cluster's transport stack: its CA, its client certificate, its refreshed credential.
      return std::make_unique<ray::JobsClient>(*kube.transport, context.stack().sleeper(), std::move(*client_options));
    };
    // Re-attach through the RayCluster, not the proxy URL that needs the cluster's credential.
    return workflow::ClusterRay{kept.cluster.get(), follow(RayClusterFlagsText({raycluster, options.access}, context))};
  };
  env.open_ledger = [options, &context]() -> core::Result<workflow::LedgerRecorder> {
    state::LedgerStore& store = context.stack().Ledger(options.ledger.state_dir);
    auto run = store.ResolveRun(options.ledger.run_id, context.env, /*create=*/true);
    if (!run) return core::Fail(run.error());
    return workflow::LedgerRecorder{&store, *run};
  };
  env.last_built_image = [options, &context]() -> std::string {
    state::LedgerStore& store = context.stack().Ledger(options.ledger.state_dir);
    // Read only (ResolveRun would make the state directory): a dry run writes nothing.
    std::string run = options.ledger.run_id.empty() ? context.env.GetOr("TPUTRAIN_RUN", "") : options.ledger.run_id;
    if (auto current = store.CurrentRun(); run.empty() && current) run = *current;
    if (run.empty()) return "";
    auto ledger = store.Load(run);
    return ledger ? workflow::LastBuiltImage(*ledger) : "";
  };
  return env;
}

}  // namespace tputrain::cli
