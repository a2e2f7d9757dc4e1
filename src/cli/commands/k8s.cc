// tputrain apply | delete | wait: kubectl-shaped commands on tputrain's own Kubernetes client.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/k8s/wait.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/apply_recorded.h"

namespace tputrain::cli {
namespace {

core::Result<std::vector<k8s::Object>> ReadManifests(const std::string& file) {
  std::string text;
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) return core::Fail(core::Error::Usage("-f: cannot read " + file));
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  return k8s::ParseManifests(text, file == "-" ? "<stdin>" : file);
}

nlohmann::json ObjectJson(const k8s::Object& object) {
  return {{"apiVersion", object.api_version}, {"kind", object.kind}, {"namespace", object.ns}, {"name", object.name}};
}

struct ApplyFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::string file;
  bool force_conflicts = false;
};

core::Result<int> RunApply(const ApplyFlags& flags, Context& context) {
  auto objects = ReadManifests(flags.file);
  if (!objects) return core::Fail(objects.error());
  Stack& stack = context.stack();
  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  k8s::ApplyOptions options;
  options.dry_run = context.global.dry_run;
  options.force_conflicts = flags.force_conflicts;
  options.ns = flags.access.ns;
  bool table = context.global.output_format() == OutputFormat::kTable;
  // Every object goes into the run ledger before it is sent, so `tputrain cleanup` deletes it.
  auto ledger = OpenApplyLedger(flags.ledger.run_id, flags.ledger.state_dir, flags.access, **connection, context,
                                options.dry_run);
  if (!ledger) return core::Fail(ledger.error());
  workflow::RecordedApplyEnv env{*(*connection)->client, *(*connection)->discovery, {stack.clock(), stack.sleeper(), context.cancel},
                                 ledger->access, ledger->recorder()};
  auto applied = workflow::ApplyRecorded(env, *objects, options, [&](const k8s::ApplyResult& result) {
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
  auto objects = ReadManifests(flags.file);
  if (!objects) return core::Fail(objects.error());
  Stack& stack = context.stack();
  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  k8s::DeleteOptions options;
  options.ns = flags.access.ns;
  options.dry_run = context.global.dry_run;
  options.wait = !flags.no_wait;
  options.timeout = *timeout;
  bool table = context.global.output_format() == OutputFormat::kTable;
  // Objects the run ledger holds are marked deleted, so cleanup does not look for them again.
  state::LedgerStore& store = stack.Ledger(flags.ledger.state_dir);
  auto run = store.ResolveRun(flags.ledger.run_id, context.env, /*create=*/false);
  const auto access = AccessRecord(flags.access, **connection, context);
  auto forget = [&](const k8s::Object& object) {
    if (options.dry_run || !run || run->empty()) return;
    const std::string key = workflow::K8sObjectEntry(access, object, true).name;
    auto status = store.Update(*run, [&](state::Ledger& ledger) {
      if (auto* entry = ledger.Find("k8s-object", key)) entry->state = state::EntryState::kDeleted;
    });
    if (!status && status.error().kind != core::ErrorKind::kNotFound) context.reporter().Warn(status.error().message);
  };
  auto deleted = k8s::Delete(*(*connection)->client, *(*connection)->discovery, std::move(*objects), options,
                             {stack.clock(), stack.sleeper(), context.cancel}, [&](const k8s::DeleteResult& result) {
                               forget(result.object);
                               if (table) {
                                 context.out << result.object.Describe() << " "
                                             << (result.existed ? (options.dry_run ? "deleted (server dry run)" : "deleted")
                                                                : "not found")
                                             << "\n";
                                 context.out.flush();
                               }
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

struct WaitFlags {
  KubeAccessFlags access;
  std::string target;
  std::string condition = "ready";
  std::string timeout = "5m";
};

core::Result<int> RunWait(const WaitFlags& flags, Context& context) {
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  Stack& stack = context.stack();
  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  auto ref = k8s::ParseObjectRef(flags.target, client);
  if (!ref) return core::Fail(ref.error());
  std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  k8s::WatchOptions options;
  options.timeout = *timeout;
  auto waited = k8s::WaitReady(client, *(*connection)->discovery, *ref, ns, options, {stack.clock(), stack.sleeper(), context.cancel});
  if (!waited) return core::Fail(waited.error());
  nlohmann::json json = {{"kind", ref->kind}, {"namespace", ns}, {"name", ref->name}, {"ready", true}};
  PrintResult(context, json, [&](std::ostream& out) { out << ref->kind << " " << ns << "/" << ref->name << " ready\n"; });
  return core::kExitOk;
}

}  // namespace

void SetupK8sCommands(CLI::App& root, Context& context) {
  auto apply_flags = std::make_shared<ApplyFlags>();
  auto* apply = root.add_subcommand("apply", "Server-side apply Kubernetes manifests (CRDs and Namespaces first)");
  apply->add_option("-f,--filename", apply_flags->file, "Manifest file, or - for stdin")->required();
  apply->add_flag("--force-conflicts", apply_flags->force_conflicts, "Take over fields another manager owns");
  AddKubeAccessFlags(*apply, apply_flags->access);
  AddProvisionFlags(apply, apply_flags->ledger, /*waits=*/false);
  apply->footer(
      "Examples:\n  tputrain render raycluster-maxtext --set CLUSTER_NAME=ray | tputrain apply -f -\n"
      "  tputrain apply -f jobset.yaml --dry-run   # the server validates, stores nothing");
  apply->callback([apply_flags, &context] { context.outcome = RunApply(*apply_flags, context); });

  auto delete_flags = std::make_shared<DeleteFlags>();
  auto* del = root.add_subcommand("delete", "Delete the objects of a manifest, in reverse order, waiting until gone");
  del->add_option("-f,--filename", delete_flags->file, "Manifest file, or - for stdin")->required();
  del->add_flag("--no-wait", delete_flags->no_wait, "Return once deletion is accepted");
  del->add_option("--timeout", delete_flags->timeout, "How long each object may take to go (default 5m)");
  AddKubeAccessFlags(*del, delete_flags->access);
  AddProvisionFlags(del, delete_flags->ledger, /*waits=*/false);
  del->footer("Example:\n  tputrain delete -f raycluster.yaml -n ml");
  del->callback([delete_flags, &context] { context.outcome = RunDelete(*delete_flags, context); });

  auto wait_flags = std::make_shared<WaitFlags>();
  auto* wait = root.add_subcommand("wait", "Wait until a Kubernetes object is ready (watching it, no polling)");
  wait->add_option("target", wait_flags->target, "KIND/NAME, e.g. raycluster/ray, lws/jetstream, jobset/sax")
      ->required();
  wait->add_option("--for", wait_flags->condition, "What to wait for (ready)")->check(CLI::IsMember({"ready"}));
  wait->add_option("--timeout", wait_flags->timeout, "How long to wait (default 5m)");
  AddKubeAccessFlags(*wait, wait_flags->access);
  wait->footer("Example:\n  tputrain wait raycluster/ray --for ready --timeout 20m -n ml");
  wait->callback([wait_flags, &context] { context.outcome = RunWait(*wait_flags, context); });
}

}  // namespace tputrain::cli
