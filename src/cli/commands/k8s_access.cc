#include "commands/k8s_access.h"

#include <filesystem>

#include "stack.h"
#include "tputrain/gcp/names.h"
#include "tputrain/k8s/names.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/cluster_access.h"

namespace tputrain::cli {

void AddKubeAccessFlags(CLI::App& command, KubeAccessFlags& flags) {
  command.add_option("--cluster", flags.gke_cluster,
                     "GKE cluster to reach (with --location): its endpoint and CA from the API, the token from "
                     "your Google credentials; no kubeconfig needed");
  command.add_option("--kubeconfig", flags.kubeconfig, "Kubeconfig file (default: KUBECONFIG, else ~/.kube/config)")
      ->type_name("FILE");
  command.add_option("--context", flags.context, "Kubeconfig context (default: its current-context)");
  // Checked as it is parsed, for every command: the namespace becomes a URL path segment.
  static const CLI::Validator kNamespace(
      [](std::string& value) -> std::string {
        auto valid = k8s::CheckNamespace("", value);
        return valid ? "" : valid.error().message.substr(2);  // after CheckNamespace's ": "
      },
      "", "NAMESPACE");
  command.add_option("-n,--namespace", flags.ns, "Kubernetes namespace (default: the context's)")->check(kNamespace);
  command.add_flag("--insecure-skip-tls-verify", flags.insecure,
                   "Accept a kubeconfig cluster that disables TLS verification");
}

core::Result<gcp::container::ClusterRef> GkeClusterRef(const KubeAccessFlags& flags, Context& context) {
  auto settings = context.settings();
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

core::Result<std::unique_ptr<k8s::Connection>> ConnectGkeCluster(const gcp::container::ClusterRef& ref,
                                                                 const std::string& ns, Context& context) {
  return context.stack().Kube(KubeTarget{ref, "", "", ns, false});
}

core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(const KubeAccessFlags& flags, Context& context) {
  if (flags.gke_ref) return ConnectGkeCluster(*flags.gke_ref, flags.ns, context);
  if (!flags.gke_cluster.empty()) {
    if (!flags.kubeconfig.empty() || !flags.context.empty()) {
      return core::Fail(core::Error::Usage(
          "--cluster and --kubeconfig/--context are exclusive: name a GKE cluster or a kubeconfig context"));
    }
    auto ref = GkeClusterRef(flags, context);
    if (!ref) return core::Fail(ref.error());
    return ConnectGkeCluster(*ref, flags.ns, context);
  }
  return context.stack().Kube(KubeTarget{std::nullopt, flags.kubeconfig, flags.context, flags.ns, flags.insecure});
}

state::AccessRecord AccessRecordOf(const KubeAccessFlags& flags, const k8s::Connection& connection, Context& context) {
  if (flags.gke_ref) return state::AccessRecord::Gke(flags.gke_ref->Name());
  if (!flags.gke_cluster.empty()) {
    auto ref = GkeClusterRef(flags, context);
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

core::Result<ApplyLedger> OpenApplyLedger(const std::string& run_flag, const std::string& state_dir, Context& context,
                                          bool dry_run) {
  ApplyLedger ledger;
  if (dry_run) return ledger;
  ledger.store = &context.stack().Ledger(state_dir);
  auto run = ledger.store->ResolveRun(run_flag, context.env, /*create=*/true);
  if (!run) return core::Fail(run.error());
  ledger.run_id = *run;
  return ledger;
}

void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags) {
  command.add_option("--raycluster", flags.name,
                     "Reach this RayCluster's head (NAME-head-svc:8265) through the Kubernetes API server");
  AddKubeAccessFlags(command, flags.access);
}

std::string RayClusterFlagsText(const RayClusterFlags& flags, const Context& context) {
  std::vector<std::string> argv = {"--raycluster", flags.name};
  if (!flags.access.ns.empty()) argv.insert(argv.end(), {"-n", flags.access.ns});
  if (!flags.access.gke_cluster.empty()) {
    argv.insert(argv.end(), {"--cluster", flags.access.gke_cluster});
    if (!context.global.location.empty()) argv.insert(argv.end(), {"--location", context.global.location});
  }
  if (!flags.access.kubeconfig.empty()) argv.insert(argv.end(), {"--kubeconfig", flags.access.kubeconfig});
  if (!flags.access.context.empty()) argv.insert(argv.end(), {"--context", flags.access.context});
  return ray::ShellJoin(argv);
}

core::Result<std::unique_ptr<RaySession>> ConnectRayCluster(const RayClusterFlags& flags,
                                                            const ray::ConnectionFlags& ray_flags, Context& context) {
  if (!ray_flags.address.empty()) {
    return core::Fail(core::Error::Usage("--raycluster and --address are exclusive: pass one"));
  }
  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  auto endpoint = k8s::RayHeadEndpoint(client, ns, flags.name);
  if (!endpoint) return core::Fail(endpoint.error());
  auto options = RayThroughProxy(ray_flags, *endpoint, context);
  if (!options) return core::Fail(options.error());
  return context.stack().Ray(std::move(*options), std::move(*connection));
}

core::Result<ray::ClientOptions> RayThroughProxy(const ray::ConnectionFlags& ray_flags,
                                                 const k8s::ProxyEndpoint& endpoint, Context& context) {
  ray::ConnectionFlags with_address = ray_flags;
  with_address.address = endpoint.base_url;
  auto options = ray::ResolveClientOptions(with_address, context.env, std::nullopt, &context.redactor);
  if (!options) return core::Fail(options.error());
  for (const auto& header : endpoint.headers) options->headers.push_back(header);
  return options;
}

workflow::RecordedApplyEnv RecordedApplyEnvOf(const k8s::Connection& connection, const ApplyLedger& ledger,
                                              Context& context) {
  return workflow::RecordedApplyEnv{context.stack().runtime(), *connection.client, *connection.discovery, ledger.access,
                                    ledger.recorder()};
}

workflow::RecordedDeleteEnv RecordedDeleteEnvOf(const KubeAccessFlags& flags, const k8s::Connection& connection,
                                                const std::string& run_flag, const std::string& state_dir,
                                                Context& context) {
  Stack& stack = context.stack();
  state::LedgerStore& store = stack.Ledger(state_dir);
  auto run = store.ResolveRun(run_flag, context.env, /*create=*/false);
  return workflow::RecordedDeleteEnv{
      stack.runtime(), *connection.client, *connection.discovery, AccessRecordOf(flags, connection, context),
      &store,          run ? *run : ""};
}

}  // namespace tputrain::cli
