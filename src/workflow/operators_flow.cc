#include "tputrain/workflow/operators_flow.h"

#include "tputrain/core/duration.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {
namespace {

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

}  // namespace

core::Result<std::vector<OperatorStatus>> CheckOperators(Root& root, const OperatorCheckRequest& request) {
  std::vector<OperatorInfo> wanted;
  for (const auto& name : request.names) {
    auto info = FindOperator(name);
    if (!info) return core::Fail(info.error());
    wanted.push_back(*info);
  }
  if (wanted.empty()) wanted = KnownOperators();
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  auto statuses = CheckOperators(*(*connection)->client, *(*connection)->discovery, wanted);
  if (!statuses) return core::Fail(statuses.error());
  for (const auto& status : *statuses) {
    if (!status.tpu_webhook) continue;
    const std::string line = RayTpuWebhookLine(*status.tpu_webhook);
    if (status.tpu_webhook->presence == k8s::RayTpuWebhook::Presence::kPresent) {
      root.runtime().reporter.Info(line);
    } else {
      root.runtime().reporter.Warn(line);
    }
  }
  return statuses;
}

nlohmann::json ToJson(const std::vector<OperatorStatus>& statuses) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& status : statuses) {
    json.push_back({{"operator", status.info.name},
                    {"kind", status.info.kind},
                    {"installed", status.installed},
                    {"fix", status.installed ? "" : status.info.fix}});
    if (!status.tpu_webhook) continue;
    json.back()["tpu_webhook"] = {{"state", TpuWebhookState(status.tpu_webhook->presence)},
                                  {"configuration", status.tpu_webhook->configuration}};
  }
  return json;
}

core::Result<OperatorInstalled> InstallOperator(Root& root, const OperatorInstallRequest& request) {
  if (request.names.size() != 1) return core::Fail(core::Error::Usage("operator: name one (lws or jobset)"));
  auto info = FindOperator(request.names.front());
  if (!info) return core::Fail(info.error());
  auto timeout = core::ParseOptionalDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  if (info->manifest_url.empty()) {
    return core::Fail(
        core::Error::Usage(info->name + ": installed as a GKE add-on, not from a manifest: " + info->fix));
  }
  auto ledger = OpenApplyLedger(root, request.ledger, request.dry_run);
  if (!ledger) return core::Fail(ledger.error());
  const std::string run_id = ledger->run_id;
  auto objects =
      LoadOperatorManifest(root.Downloads(), request.manifest.empty() ? info->manifest_url : request.manifest);
  if (!objects) return core::Fail(objects.error());
  auto cluster = ConnectRecordedApply(root, request.access, std::move(*ledger));
  if (!cluster) return core::Fail(cluster.error());
  auto installed = InstallOperator((*cluster)->env, *info, *objects, request.dry_run,
                                   timeout->value_or(std::chrono::minutes(5)), root.runtime().reporter);
  if (!installed) return core::Fail(installed.error());
  return OperatorInstalled{*info, std::move(*installed), run_id};
}

nlohmann::json ToJson(const OperatorInstalled& installed, bool dry_run) {
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& result : installed.install.applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"namespace", result.object.ns},
                       {"name", result.object.name},
                       {"action", std::string(k8s::ApplyActionName(result.action, dry_run))}});
  }
  return {{"operator", installed.info.name},
          {"version", installed.info.version},
          {"applied", applied},
          {"ready", installed.install.ready},
          {"run", installed.run_id}};
}

}  // namespace tputrain::workflow
