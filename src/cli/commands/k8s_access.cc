#include "commands/k8s_access.h"

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
        auto valid = workflow::CheckNamespace(value);
        return valid ? "" : valid.error().message.substr(2);  // after CheckNamespace's ": "
      },
      "", "NAMESPACE");
  command.add_option("-n,--namespace", flags.ns, "Kubernetes namespace (default: the context's)")->check(kNamespace);
  command.add_flag("--insecure-skip-tls-verify", flags.insecure,
                   "Accept a kubeconfig cluster that disables TLS verification");
}

void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags) {
  command.add_option("--raycluster", flags.name,
                     "Reach this RayCluster's head (NAME-head-svc:8265) through the Kubernetes API server");
  AddKubeAccessFlags(command, flags.access);
}

}  // namespace tputrain::cli
