// tputrain apply | delete (and wait, k8s_wait.cc): kubectl-shaped commands on tputrain's own
// Kubernetes client.
#include <iostream>
#include <memory>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/workflow/manifests.h"

namespace tputrain::cli {
namespace {

nlohmann::json ObjectJson(const k8s::Object& object) {
  return {{"apiVersion", object.api_version}, {"kind", object.kind}, {"namespace", object.ns}, {"name", object.name}};
}

struct ApplyFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::string file;
  bool force_conflicts = false;
  std::string queue;  // --queue: a Kueue LocalQueue the workloads wait in
};

core::Result<int> RunApply(const ApplyFlags& flags, Context& context) {
  const bool dry_run = context.global.dry_run;
  bool table = context.global.output_format() == OutputFormat::kTable;
  workflow::ManifestApplyRequest request;
  request.access = flags.access;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  request.file = flags.file;
  request.force_conflicts = flags.force_conflicts;
  request.queue = flags.queue;
  request.dry_run = dry_run;
  auto applied = workflow::ApplyManifests(context.stack(), request, context.in, [&](const k8s::ApplyResult& result) {
    if (!table) return;
    context.out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, dry_run) << "\n";
    context.out.flush();
  });
  if (!applied) return core::Fail(applied.error());
  if (!table) {
    nlohmann::json json = nlohmann::json::array();
    for (const auto& result : *applied) {
      auto item = ObjectJson(result.object);
      item["action"] = std::string(k8s::ApplyActionName(result.action, false));
      item["dryRun"] = dry_run;
      item["resourceVersion"] = result.resource_version;
      json.push_back(item);
    }
    PrintResult(context, json, [](std::ostream&) {});
  }
  return core::kExitOk;
}

struct DeleteFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;
  std::string file;
  bool no_wait = false;
  std::string timeout = "5m";
};

core::Result<int> RunDelete(const DeleteFlags& flags, Context& context) {
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  const bool dry_run = context.global.dry_run;
  bool table = context.global.output_format() == OutputFormat::kTable;
  const workflow::ManifestDeleteRequest request{
      flags.access, {flags.ledger.run_id, flags.ledger.state_dir}, flags.file, !flags.no_wait, *timeout, dry_run};
  auto deleted = workflow::DeleteManifests(context.stack(), request, context.in, [&](const k8s::DeleteResult& result) {
    if (!table) return;
    const char* what = result.existed ? (dry_run ? "deleted (server dry run)" : "deleted") : "not found";
    context.out << result.object.Describe() << " " << what << "\n";
    context.out.flush();
  });
  if (!deleted) return core::Fail(deleted.error());
  if (!table) {
    nlohmann::json json = nlohmann::json::array();
    for (const auto& result : *deleted) {
      auto item = ObjectJson(result.object);
      item["deleted"] = result.existed;
      json.push_back(item);
    }
    PrintResult(context, json, [](std::ostream&) {});
  }
  return core::kExitOk;
}

}  // namespace

void SetupK8sCommands(CLI::App& root, Context& context) {
  auto apply_flags = std::make_shared<ApplyFlags>();
  auto* apply = root.add_subcommand("apply", "Server-side apply Kubernetes manifests (CRDs and Namespaces first)");
  apply->add_option("-f,--filename", apply_flags->file, "Manifest file, or - for stdin")->type_name("FILE")->required();
  apply->add_flag("--force-conflicts", apply_flags->force_conflicts, "Take over fields another manager owns");
  apply->add_option("--queue", apply_flags->queue,
                    "Label the workloads (RayCluster, RayJob, LeaderWorkerSet, JobSet, Job) for this Kueue queue");
  AddKubeAccessFlags(*apply, apply_flags->access);
  AddProvisionFlags(apply, apply_flags->ledger, /*waits=*/false);
  apply->footer(
      "Examples:\n  tputrain render raycluster-maxtext --set CLUSTER_NAME=ray | tputrain apply -f -\n"
      "  tputrain apply -f jobset.yaml --dry-run   # the server validates, stores nothing");
  apply->callback([apply_flags, &context] { context.outcome = RunApply(*apply_flags, context); });

  auto delete_flags = std::make_shared<DeleteFlags>();
  auto* del = root.add_subcommand("delete", "Delete the objects of a manifest, in reverse order, waiting until gone");
  del->add_option("-f,--filename", delete_flags->file, "Manifest file, or - for stdin")->type_name("FILE")->required();
  del->add_flag("--no-wait", delete_flags->no_wait, "Return once deletion is accepted");
  // Scripts pass --yes to every delete; this one, like kubectl's, deletes what the file names
  // without asking, so the flag changes nothing here.
  del->add_flag("-y,--yes", delete_flags->ledger.yes, "Accepted as on every tputrain delete (this one never asks)");
  del->add_option("--timeout", delete_flags->timeout, "How long each object may take to go (default 5m)");
  AddKubeAccessFlags(*del, delete_flags->access);
  AddProvisionFlags(del, delete_flags->ledger, /*waits=*/false);
  del->footer("Example:\n  tputrain delete -f raycluster.yaml -n ml");
  del->callback([delete_flags, &context] { context.outcome = RunDelete(*delete_flags, context); });

  SetupWaitCommand(root, context);
}

}  // namespace tputrain::cli
