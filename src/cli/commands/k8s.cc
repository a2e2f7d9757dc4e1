// tputrain apply | delete (and wait, k8s_wait.cc): kubectl-shaped commands on tputrain's own
// Kubernetes client.
#include <iostream>
#include <memory>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/queue.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

// Manifests of operators run to a few MiB; a wrong path (a disk image) must not fill memory.
constexpr size_t kMaxManifestBytes = 32 * core::kMiB;

core::Result<std::vector<k8s::Object>> ReadManifests(const std::string& file, std::istream& in) {
  auto text = file == "-" ? core::ReadStream(in, "<stdin>", "-f", kMaxManifestBytes)
                          : core::ReadFile(file, "-f", kMaxManifestBytes);
  if (!text) return core::Fail(text.error());
  return k8s::ParseManifests(*text, file == "-" ? "<stdin>" : file);
}

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
  auto objects = ReadManifests(flags.file, context.in);
  if (!objects) return core::Fail(objects.error());
  // The run first: a ledger that cannot record refuses the apply before any call.
  auto cluster = workflow::OpenRecordedApply(context.stack(), flags.access,
                                             {flags.ledger.run_id, flags.ledger.state_dir}, context.global.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  if (auto queued = workflow::PrepareForQueue(*(*cluster)->connection->client, flags.queue, flags.access.ns, *objects);
      !queued) {
    return core::Fail(queued.error());
  }
  k8s::ApplyOptions options;
  options.dry_run = context.global.dry_run;
  options.force_conflicts = flags.force_conflicts;
  options.ns = flags.access.ns;
  bool table = context.global.output_format() == OutputFormat::kTable;
  // Every object goes into the run ledger before it is sent, so `tputrain cleanup` deletes it.
  auto applied = workflow::ApplyRecorded((*cluster)->env, *objects, options, [&](const k8s::ApplyResult& result) {
    if (table) {
      context.out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, options.dry_run) << "\n";
      context.out.flush();
    }
  });
  if (!applied) return core::Fail(applied.error());
  if (!table) {
    nlohmann::json json = nlohmann::json::array();
    for (const auto& result : *applied) {
      auto item = ObjectJson(result.object);
      item["action"] = std::string(k8s::ApplyActionName(result.action, false));
      item["dryRun"] = options.dry_run;
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
  auto objects = ReadManifests(flags.file, context.in);
  if (!objects) return core::Fail(objects.error());
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  k8s::DeleteOptions options;
  options.ns = flags.access.ns;
  options.dry_run = context.global.dry_run;
  options.wait = !flags.no_wait;
  options.timeout = *timeout;
  bool table = context.global.output_format() == OutputFormat::kTable;
  workflow::RecordedDeleteEnv env = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, **connection,
                                                                  {flags.ledger.run_id, flags.ledger.state_dir});
  auto deleted = workflow::DeleteRecorded(env, std::move(*objects), options, [&](const k8s::DeleteResult& result) {
    if (!table) return;
    const char* what = result.existed ? (options.dry_run ? "deleted (server dry run)" : "deleted") : "not found";
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
