#include "tputrain/workflow/serve_env.h"

#include "pool_creator.h"
#include "tputrain/workflow/operators.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {

PoolCreator PoolCreatorFor(Root& root, const KubeAccessFlags& access, const ApplyLedger& ledger) {
  if (access.gke_cluster.empty()) return {};
  return [&root, access, ledger](const std::vector<gcp::container::NodePoolSpec>& pools) -> core::Status {
    auto cluster = GkeClusterRef(root, access);
    if (!cluster) return core::Fail(cluster.error());
    auto google = root.Google();
    if (!google) return core::Fail(google.error());
    auto provision = root.Provision(*google);
    provision.ledger = ledger.store;
    provision.run_id = ledger.run_id;
    auto created = CreateNodePools(provision, *cluster, pools);
    if (!created) return core::Fail(created.error());
    return {};
  };
}

OperatorLoader OperatorLoaderFor(Root& root, const std::string& name, const std::string& manifest) {
  return [&root, name, manifest]() -> core::Result<std::vector<k8s::Object>> {
    auto info = FindOperator(name);
    if (!info) return core::Fail(info.error());
    return LoadOperatorManifest(root.Downloads(), manifest.empty() ? info->manifest_url : manifest);
  };
}

core::Status WithServeUpEnv(Root& root, const ServeUpAccess& request,
                            const std::function<core::Status(ServeUpEnv&)>& run) {
  // The run first: a ledger that cannot record refuses the command before any call.
  auto cluster = OpenRecordedApply(root, request.access, request.ledger, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  ServeUpEnv env{root.runtime(),
                 (*cluster)->env,
                 OperatorLoaderFor(root, "lws", request.lws_manifest),
                 PoolCreatorFor(root, request.access, (*cluster)->ledger),
                 *(*cluster)->connection->transport,
                 OperatorLoaderFor(root, "jobset", request.jobset_manifest)};
  return run(env);
}

}  // namespace tputrain::workflow
