#include "tputrain/workflow/kube_access.h"

#include <filesystem>

#include "tputrain/gcp/names.h"
#include "tputrain/k8s/kubeconfig.h"
#include "tputrain/k8s/names.h"
#include "tputrain/ray/entrypoint.h"

namespace tputrain::workflow {

core::Status CheckNamespace(std::string_view ns) { return k8s::CheckNamespace("", ns); }

core::Result<gcp::container::ClusterRef> GkeClusterRef(Root& root, const KubeAccessFlags& flags) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = settings->Require("project");
  if (!project) return core::Fail(project.error());
  auto location = settings->Get("location");
  if (!location || location->empty()) {
    return core::Fail(core::Error::Usage("--location: --cluster " + flags.gke_cluster +
                                         " needs the cluster's zone or region (--location, or CLOUDSDK_COMPUTE_ZONE)"));
  }
  for (auto status : {gcp::CheckProjectId("--project", *project), gcp::CheckLocation("--location", *location),
                      gcp::CheckResourceId("--cluster", flags.gke_cluster, gcp::kGkeNameLength)}) {
    if (!status) return core::Fail(status.error());
  }
  return gcp::container::ClusterRef{*project, *location, flags.gke_cluster};
}

core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(Root& root, const KubeAccessFlags& flags) {
  if (flags.gke_ref) return root.Kube(KubeTarget{*flags.gke_ref, "", "", flags.ns, false});
  if (!flags.gke_cluster.empty()) {
    if (!flags.kubeconfig.empty() || !flags.context.empty()) {
      return core::Fail(core::Error::Usage(
          "--cluster and --kubeconfig/--context are exclusive: name a GKE cluster or a kubeconfig context"));
    }
    auto ref = GkeClusterRef(root, flags);
    if (!ref) return core::Fail(ref.error());
    return root.Kube(KubeTarget{*ref, "", "", flags.ns, false});
  }
  return root.Kube(KubeTarget{std::nullopt, flags.kubeconfig, flags.context, flags.ns, flags.insecure});
}

bool ClusterAtHand(const Root& root, const KubeAccessFlags& access) {
  if (!access.gke_cluster.empty() || access.gke_ref || !access.kubeconfig.empty() || !access.context.empty()) {
    return true;
  }
  return k8s::DefaultKubeconfigExists(root.env());
}

state::AccessRecord AccessRecordOf(Root& root, const KubeAccessFlags& flags, const k8s::Connection& connection) {
  if (flags.gke_ref) return state::AccessRecord::Gke(flags.gke_ref->Name());
  if (!flags.gke_cluster.empty()) {
    auto ref = GkeClusterRef(root, flags);
    if (ref) return state::AccessRecord::Gke(ref->Name());
  }
  std::string kubeconfig;
  if (!flags.kubeconfig.empty()) {
    std::error_code error;
    auto absolute = std::filesystem::absolute(flags.kubeconfig, error);
    kubeconfig = error ? flags.kubeconfig : absolute.lexically_normal().string();
  }
  return state::AccessRecord::Kubeconfig(kubeconfig, connection.access.context);
}

core::Result<ApplyLedger> OpenApplyLedger(Root& root, const LedgerFlags& flags, bool dry_run) {
  ApplyLedger ledger;
  if (dry_run) return ledger;
  ledger.store = &root.Ledger(flags.state_dir);
  auto run = ledger.store->ResolveRun(flags.run_id, root.env(), /*create=*/true);
  if (!run) return core::Fail(run.error());
  ledger.run_id = *run;
  return ledger;
}

core::Result<std::unique_ptr<RecordedApply>> OpenRecordedApply(Root& root, const KubeAccessFlags& access,
                                                               const LedgerFlags& flags, bool dry_run) {
  auto ledger = OpenApplyLedger(root, flags, dry_run);
  if (!ledger) return core::Fail(ledger.error());
  return ConnectRecordedApply(root, access, std::move(*ledger));
}

core::Result<std::unique_ptr<RecordedApply>> ConnectRecordedApply(Root& root, const KubeAccessFlags& access,
                                                                  ApplyLedger ledger) {
  auto connection = ConnectCluster(root, access);
  if (!connection) return core::Fail(connection.error());
  ledger.access = AccessRecordOf(root, access, **connection);
  auto& kube = **connection;
  RecordedApplyEnv env{root.runtime(), *kube.client, *kube.discovery, ledger.access, ledger.recorder()};
  return std::unique_ptr<RecordedApply>(new RecordedApply{std::move(ledger), std::move(*connection), std::move(env)});
}

RecordedDeleteEnv RecordedDeleteEnvOf(Root& root, const KubeAccessFlags& access, const k8s::Connection& connection,
                                      const LedgerFlags& flags) {
  state::LedgerStore& store = root.Ledger(flags.state_dir);
  auto run = store.ResolveRun(flags.run_id, root.env(), /*create=*/false);
  return RecordedDeleteEnv{
      root.runtime(), *connection.client, *connection.discovery, AccessRecordOf(root, access, connection),
      &store,         run ? *run : ""};
}

core::Result<LedgerFlags> RecordedRunOf(Root& root, const LedgerFlags& ledger) {
  state::LedgerStore& store = root.Ledger(ledger.state_dir);
  auto run = store.ResolveRun(ledger.run_id, root.env(), /*create=*/false);
  if (!run) return core::Fail(run.error());
  if (auto known = CheckRecordedRun(store, *run); !known) return core::Fail(known.error());
  return LedgerFlags{*run, ledger.state_dir};
}

core::Result<std::unique_ptr<RecordedDelete>> OpenRecordedDelete(Root& root, const KubeAccessFlags& access,
                                                                 const LedgerFlags& flags) {
  auto connection = ConnectCluster(root, access);
  if (!connection) return core::Fail(connection.error());
  auto env = RecordedDeleteEnvOf(root, access, **connection, flags);
  return std::unique_ptr<RecordedDelete>(new RecordedDelete{std::move(*connection), std::move(env)});
}

std::string RayClusterFlags::CommandLine(const std::string& location) const {
  std::vector<std::string> argv = {"--raycluster", name};
  if (!access.ns.empty()) argv.insert(argv.end(), {"-n", access.ns});
  if (!access.gke_cluster.empty()) {
    argv.insert(argv.end(), {"--cluster", access.gke_cluster});
    if (!location.empty()) argv.insert(argv.end(), {"--location", location});
  }
  if (!access.kubeconfig.empty()) argv.insert(argv.end(), {"--kubeconfig", access.kubeconfig});
  if (!access.context.empty()) argv.insert(argv.end(), {"--context", access.context});
  return ray::ShellJoin(argv);
}

core::Result<std::unique_ptr<RaySession>> ConnectRayCluster(Root& root, const RayClusterFlags& flags,
                                                            const ray::ConnectionFlags& ray_flags) {
  if (!ray_flags.address.empty()) {
    return core::Fail(core::Error::Usage("--raycluster and --address are exclusive: pass one"));
  }
  auto connection = ConnectCluster(root, flags.access);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  auto endpoint = k8s::RayHeadEndpoint(client, ns, flags.name);
  if (!endpoint) return core::Fail(endpoint.error());
  auto options = RayThroughProxy(root, ray_flags, *endpoint);
  if (!options) return core::Fail(options.error());
  return root.Ray(std::move(*options), std::move(*connection));
}

core::Result<ray::ClientOptions> RayThroughProxy(Root& root, const ray::ConnectionFlags& ray_flags,
                                                 const k8s::ProxyEndpoint& endpoint) {
  ray::ConnectionFlags with_address = ray_flags;
  with_address.address = endpoint.base_url;
  auto options = ray::ResolveClientOptions(with_address, root.env(), std::nullopt, &root.redactor());
  if (!options) return core::Fail(options.error());
  for (const auto& header : endpoint.headers) options->headers.push_back(header);
  return options;
}

core::Result<ray::ClientOptions> ResolveRayClient(Root& root, const ray::ConnectionFlags& flags) {
  std::optional<std::string> configured;
  if (flags.address.empty() && !root.env().Get("RAY_ADDRESS")) {
    auto settings = root.Settings();
    if (!settings) return core::Fail(settings.error());
    configured = settings->Get("ray_address");
  }
  return ray::ResolveClientOptions(flags, root.env(), configured, &root.redactor());
}

}  // namespace tputrain::workflow
