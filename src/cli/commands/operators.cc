// tputrain operators check [NAME...] | install lws|jobset [--manifest FILE|URL]
#include "tputrain/workflow/operators.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

struct OperatorFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::vector<std::string> names;
  std::string manifest;
  std::string timeout = "5m";
};

std::string TpuWebhookState(k8s::RayTpuWebhook::Presence presence) {
  switch (presence) {
    case k8s::RayTpuWebhook::Presence::kPresent:
      return "present";
    case k8s::RayTpuWebhook::Presence::kAbsent:
      return "absent";
    case k8s::RayTpuWebhook::Presence::kUnknown:
      break;
  }
  return "unknown";
}

core::Result<int> RunCheck(const OperatorFlags& flags, Context& context) {
  std::vector<workflow::OperatorInfo> wanted;
  for (const auto& name : flags.names) {
    auto info = workflow::FindOperator(name);
    if (!info) return core::Fail(info.error());
    wanted.push_back(*info);
  }
  if (wanted.empty()) wanted = workflow::KnownOperators();
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto statuses = workflow::CheckOperators(*(*connection)->client, *(*connection)->discovery, wanted);
  if (!statuses) return core::Fail(statuses.error());
  bool all = true;
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& status : *statuses) {
    all = all && status.installed;
    json.push_back({{"operator", status.info.name},
                    {"kind", status.info.kind},
                    {"installed", status.installed},
                    {"fix", status.installed ? "" : status.info.fix}});
    rows.push_back({status.info.name, status.info.kind, status.installed ? "installed" : "missing",
                    status.installed ? "" : status.info.fix});
    if (!status.tpu_webhook) continue;
    // Information, not a verdict: the exit code stays about the kinds.
    const auto& webhook = *status.tpu_webhook;
    json.back()["tpu_webhook"] = {{"state", TpuWebhookState(webhook.presence)},
                                  {"configuration", webhook.configuration}};
    const std::string line = workflow::RayTpuWebhookLine(webhook);
    if (webhook.presence == k8s::RayTpuWebhook::Presence::kPresent) {
      context.reporter().Info(line);
    } else {
      context.reporter().Warn(line);
    }
  }
  PrintResult(context, json, [&](std::ostream& out) { PrintTable(out, {"operator", "kind", "status", "fix"}, rows); });
  return all ? core::kExitOk : core::kExitFailed;
}

core::Result<int> RunInstall(const OperatorFlags& flags, Context& context) {
  if (flags.names.size() != 1) return core::Fail(core::Error::Usage("operator: name one (lws or jobset)"));
  auto info = workflow::FindOperator(flags.names.front());
  if (!info) return core::Fail(info.error());
  auto timeout = ParseTimeoutFlag("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  if (info->manifest_url.empty()) {
    return core::Fail(
        core::Error::Usage(info->name + ": installed as a GKE add-on, not from a manifest: " + info->fix));
  }
  const bool dry_run = context.global.dry_run;
  // The run first: a ledger that cannot record refuses the install before any call.
  auto ledger = workflow::OpenApplyLedger(context.stack(), {flags.ledger.run_id, flags.ledger.state_dir}, dry_run);
  if (!ledger) return core::Fail(ledger.error());
  auto objects = workflow::LoadOperatorManifest(context.stack().Downloads(),
                                                flags.manifest.empty() ? info->manifest_url : flags.manifest);
  if (!objects) return core::Fail(objects.error());
  auto cluster = workflow::ConnectRecordedApply(context.stack(), flags.access, std::move(*ledger));
  if (!cluster) return core::Fail(cluster.error());
  auto installed = workflow::InstallOperator((*cluster)->env, *info, *objects, dry_run,
                                             timeout->value_or(std::chrono::minutes(5)), context.reporter());
  if (!installed) return core::Fail(installed.error());
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& result : installed->applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"namespace", result.object.ns},
                       {"name", result.object.name},
                       {"action", std::string(k8s::ApplyActionName(result.action, dry_run))}});
  }
  nlohmann::json json = {{"operator", info->name},
                         {"version", info->version},
                         {"applied", applied},
                         {"ready", installed->ready},
                         {"run", ledger->run_id}};
  PrintResult(context, json, [&](std::ostream& out) {
    out << info->name << " " << info->version << ": " << installed->applied.size() << " objects applied"
        << (dry_run ? " (server dry run)" : "") << "\n";
    for (const auto& ready : installed->ready) out << "Deployment " << ready << " available\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupOperatorsCommand(CLI::App& root, Context& context) {
  auto* operators = root.add_subcommand(
      "operators", "The operators the workloads need: KubeRay (GKE add-on), LeaderWorkerSet, JobSet");
  operators->require_subcommand(1);

  auto check_flags = std::make_shared<OperatorFlags>();
  auto* check = operators->add_subcommand("check", "Say which operators are installed, and how to get the others");
  check->add_option("operator", check_flags->names, "kuberay, lws, jobset (default: all)");
  AddKubeAccessFlags(*check, check_flags->access);
  check->footer("Exit codes: 0 all installed, 1 some missing.\nExample:\n  tputrain operators check kuberay lws");
  check->callback([check_flags, &context] { context.outcome = RunCheck(*check_flags, context); });

  auto install_flags = std::make_shared<OperatorFlags>();
  auto* install = operators->add_subcommand(
      "install", "Install LeaderWorkerSet or JobSet from its pinned release manifest, and wait until it runs");
  install->add_option("operator", install_flags->names, "lws or jobset")->required();
  install
      ->add_option("--manifest", install_flags->manifest,
                   "Release manifest to use instead of the pinned one: a file (air-gapped sites) or URL")
      ->type_name("FILE");
  install->add_option("--timeout", install_flags->timeout, "How long its Deployments may take (default 5m)");
  AddKubeAccessFlags(*install, install_flags->access);
  AddProvisionFlags(install, install_flags->ledger, /*waits=*/false);
  install->footer(
      "Examples:\n  tputrain operators install lws --cluster jetstream --location us-east5\n"
      "  tputrain operators install jobset --manifest ./jobset-v0.12.0.yaml --dry-run");
  install->callback([install_flags, &context] { context.outcome = RunInstall(*install_flags, context); });
}

}  // namespace tputrain::cli
