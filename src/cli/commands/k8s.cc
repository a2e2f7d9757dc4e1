// tputrain apply | delete (and wait, k8s_wait.cc): kubectl-shaped commands on tputrain's own
// Kubernetes client.
#include <memory>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/workflow/manifests.h"

namespace tputrain::cli {
namespace {

// apply's flags: the request's, and the run ledger's (AddProvisionFlags).
struct ApplyFlags {
  workflow::ManifestApplyRequest request;
  ProvisionFlags ledger;  // --run, --state-dir
};

core::Result<int> RunApply(const ApplyFlags& flags, Context& context) {
  const bool dry_run = context.global.dry_run;
  bool table = context.global.output_format() == OutputFormat::kTable;
  auto request = flags.request;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  request.dry_run = dry_run;
  auto applied = workflow::ApplyManifests(context.stack(), request, context.in, [&](const k8s::ApplyResult& result) {
    if (!table) return;
    context.out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, dry_run) << "\n";
    context.out.flush();
  });
  if (!applied) return core::Fail(applied.error());
  if (!table) PrintResult(context, workflow::ToJson(*applied, dry_run), [](std::ostream&) {});
  return core::kExitOk;
}

// delete's flags: the request's, the run ledger's (AddProvisionFlags) and --no-wait.
struct DeleteFlags {
  workflow::ManifestDeleteRequest request;
  ProvisionFlags ledger;
  bool no_wait = false;
};

core::Result<int> RunDelete(const DeleteFlags& flags, Context& context) {
  const bool dry_run = context.global.dry_run;
  bool table = context.global.output_format() == OutputFormat::kTable;
  auto request = flags.request;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  request.wait = !flags.no_wait;
  request.dry_run = dry_run;
  auto deleted = workflow::DeleteManifests(context.stack(), request, context.in, [&](const k8s::DeleteResult& result) {
    if (!table) return;
    const char* what = result.existed ? (dry_run ? "deleted (server dry run)" : "deleted") : "not found";
    context.out << result.object.Describe() << " " << what << "\n";
    context.out.flush();
  });
  if (!deleted) return core::Fail(deleted.error());
  if (!table) PrintResult(context, workflow::ToJson(*deleted), [](std::ostream&) {});
  return core::kExitOk;
}

}  // namespace

void SetupK8sCommands(CLI::App& root, Context& context) {
  auto apply_flags = std::make_shared<ApplyFlags>();
  auto* apply = root.add_subcommand("apply", "Server-side apply Kubernetes manifests (CRDs and Namespaces first)");
  apply->add_option("-f,--filename", apply_flags->request.file, "Manifest file, or - for stdin")
      ->type_name("FILE")
      ->required();
  apply->add_flag("--force-conflicts", apply_flags->request.force_conflicts, "Take over fields another manager owns");
  apply->add_option("--queue", apply_flags->request.queue,
                    "Label the workloads (RayCluster, RayJob, LeaderWorkerSet, JobSet, Job) for this Kueue queue");
  AddKubeAccessFlags(*apply, apply_flags->request.access);
  AddProvisionFlags(apply, apply_flags->ledger, /*waits=*/false);
  apply->footer(
      "Examples:\n  tputrain render raycluster-maxtext --set CLUSTER_NAME=ray | tputrain apply -f -\n"
      "  tputrain apply -f jobset.yaml --dry-run   # the server validates, stores nothing");
  apply->callback([apply_flags, &context] { context.outcome = RunApply(*apply_flags, context); });

  auto delete_flags = std::make_shared<DeleteFlags>();
  auto* del = root.add_subcommand("delete", "Delete the objects of a manifest, in reverse order, waiting until gone");
  del->add_option("-f,--filename", delete_flags->request.file, "Manifest file, or - for stdin")
      ->type_name("FILE")
      ->required();
  del->add_flag("--no-wait", delete_flags->no_wait, "Return once deletion is accepted");
  // Scripts pass --yes to every delete; this one, like kubectl's, deletes what the file names
  // without asking, so the flag changes nothing here.
  del->add_flag("-y,--yes", delete_flags->ledger.yes, "Accepted as on every tputrain delete (this one never asks)");
  del->add_option("--timeout", delete_flags->request.timeout, "How long each object may take to go (default 5m)");
  AddKubeAccessFlags(*del, delete_flags->request.access);
  AddProvisionFlags(del, delete_flags->ledger, /*waits=*/false);
  del->footer("Example:\n  tputrain delete -f raycluster.yaml -n ml");
  del->callback([delete_flags, &context] { context.outcome = RunDelete(*delete_flags, context); });

  SetupWaitCommand(root, context);
}

}  // namespace tputrain::cli
