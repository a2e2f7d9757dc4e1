// tputrain operators check [NAME...] | install lws|jobset [--manifest FILE|URL]
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/workflow/operators_flow.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunCheck(const workflow::OperatorCheckRequest& request, Context& context) {
  auto statuses = workflow::CheckOperators(context.stack(), request);
  if (!statuses) return core::Fail(statuses.error());
  bool all = true;
  std::vector<std::vector<std::string>> rows;
  for (const auto& status : *statuses) {
    all = all && status.installed;
    rows.push_back({status.info.name, status.info.kind, status.installed ? "installed" : "missing",
                    status.installed ? "" : status.info.fix});
  }
  PrintResult(context, workflow::ToJson(*statuses), [&](std::ostream& out) {
    PrintTable(out, {"operator", "kind", "status", "fix"}, rows);
  });
  return all ? core::kExitOk : core::kExitFailed;
}

// operators install's flags: the request's, and the run ledger's (AddProvisionFlags).
struct InstallFlags {
  workflow::OperatorInstallRequest request;
  ProvisionFlags ledger;
};

core::Result<int> RunInstall(const InstallFlags& flags, Context& context) {
  auto request = flags.request;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  request.dry_run = context.global.dry_run;
  auto installed = workflow::InstallOperator(context.stack(), request);
  if (!installed) return core::Fail(installed.error());
  const auto& info = installed->info;
  PrintResult(context, workflow::ToJson(*installed, request.dry_run), [&](std::ostream& out) {
    out << info.name << " " << info.version << ": " << installed->install.applied.size() << " objects applied"
        << (request.dry_run ? " (server dry run)" : "") << "\n";
    for (const auto& ready : installed->install.ready) out << "Deployment " << ready << " available\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupOperatorsCommand(CLI::App& root, Context& context) {
  auto* operators = root.add_subcommand(
      "operators", "The operators the workloads need: KubeRay (GKE add-on), LeaderWorkerSet, JobSet");
  operators->require_subcommand(1);

  auto check_flags = std::make_shared<workflow::OperatorCheckRequest>();
  auto* check = operators->add_subcommand("check", "Say which operators are installed, and how to get the others");
  check->add_option("operator", check_flags->names, "kuberay, lws, jobset (default: all)");
  AddKubeAccessFlags(*check, check_flags->access);
  check->footer("Exit codes: 0 all installed, 1 some missing.\nExample:\n  tputrain operators check kuberay lws");
  check->callback([check_flags, &context] { context.outcome = RunCheck(*check_flags, context); });

  auto install_flags = std::make_shared<InstallFlags>();
  auto* install = operators->add_subcommand(
      "install", "Install LeaderWorkerSet or JobSet from its pinned release manifest, and wait until it runs");
  install->add_option("operator", install_flags->request.names, "lws or jobset")->required();
  install
      ->add_option("--manifest", install_flags->request.manifest,
                   "Release manifest to use instead of the pinned one: a file (air-gapped sites) or URL")
      ->type_name("FILE");
  install->add_option("--timeout", install_flags->request.timeout, "How long its Deployments may take (default 5m)");
  AddKubeAccessFlags(*install, install_flags->request.access);
  AddProvisionFlags(install, install_flags->ledger, /*waits=*/false);
  install->footer(
      "Examples:\n  tputrain operators install lws --cluster jetstream --location us-east5\n"
      "  tputrain operators install jobset --manifest ./jobset-v0.12.0.yaml --dry-run");
  install->callback([install_flags, &context] { context.outcome = RunInstall(*install_flags, context); });
}

}  // namespace tputrain::cli
