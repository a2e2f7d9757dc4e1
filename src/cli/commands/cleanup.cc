// tputrain cleanup [--run ID | --all] [--force] [--dry-run [--detailed-exitcode]] [--scan [--delete-leaked]]
#include "stack.h"
#include "commands/cleanup_scan.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/ray_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/cluster_access.h"

namespace tputrain::cli {
namespace {

struct CleanupOptions {
  std::string run_id;
  std::string state_dir;
  bool all = false;
  bool yes = false;
  bool force = false;
  bool detailed_exitcode = false;
  std::string timeout;
  ScanFlags scan;
};

bool NeedsGoogle(const workflow::CleanupPlan& plan) {
  for (const auto& item : plan.deletes) {
    if (item.entry.kind != "k8s-object" && item.entry.kind != "ray-job") return true;
  }
  return false;
}

// The plans of the runs asked for; a run with no ledger has nothing to clean up.
core::Result<std::vector<workflow::CleanupPlan>> LoadPlans(const CleanupOptions& options, Context& context,
                                                           state::LedgerStore& store) {
  std::vector<std::string> runs;
  if (options.all) {
    auto listed = store.ListRuns();
    if (!listed) return core::Fail(listed.error());
    runs = *listed;
  } else {
    auto run = store.ResolveRun(options.run_id, context.env, /*create=*/false);
    if (!run) return core::Fail(run.error());
    if (!run->empty()) runs.push_back(*run);
  }
  std::vector<workflow::CleanupPlan> plans;
  for (const auto& run : runs) {
    auto ledger = store.Load(run);
    if (!ledger && ledger.error().kind == core::ErrorKind::kNotFound) continue;  // killed before its first record
    if (!ledger) return core::Fail(ledger.error());
    plans.push_back(workflow::PlanCleanup(*ledger, options.force));
  }
  return plans;
}

void PrintPlans(Context& context, const std::vector<workflow::CleanupPlan>& plans) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& plan : plans) json.push_back(workflow::ToJson(plan));
  PrintResult(context, {{"runs", json}}, [&](std::ostream& out) {
    if (plans.empty()) out << "No run to clean up.\n";
    for (const auto& plan : plans) {
      out << "run " << plan.run_id << ": " << plan.deletes.size() << " to delete, in this order\n";
      std::vector<std::vector<std::string>> rows;
      for (const auto& list : {&plan.deletes, &plan.kept}) {
        for (const auto& item : *list) {
          rows.push_back({item.entry.kind, item.entry.name, std::string(state::EntryStateName(item.entry.state)),
                          item.action});
        }
      }
      if (!rows.empty()) PrintTable(out, {"kind", "resource", "state", "action"}, rows);
    }
  });
}

void PrintDone(Context& context, const std::vector<std::pair<std::string, std::vector<workflow::Outcome>>>& done,
               const std::vector<workflow::CleanupPlan>& plans) {
  nlohmann::json json = nlohmann::json::array();
  for (size_t i = 0; i < done.size(); ++i) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& item : plans[i].kept) kept.push_back({{"kind", item.entry.kind}, {"name", item.entry.name}});
    json.push_back({{"run", done[i].first}, {"resources", workflow::ToJson(done[i].second)}, {"kept", kept}});
  }
  PrintResult(context, {{"runs", json}}, [&](std::ostream& out) {
    if (done.empty()) out << "No run to clean up.\n";
    for (size_t i = 0; i < done.size(); ++i) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& outcome : done[i].second) rows.push_back({outcome.kind, outcome.name, outcome.action});
      for (const auto& item : plans[i].kept) rows.push_back({item.entry.kind, item.entry.name, item.action});
      out << "run " << done[i].first << ": " << (rows.empty() ? "nothing to delete" : "cleaned up") << "\n";
      if (!rows.empty()) PrintTable(out, {"kind", "name", "result"}, rows);
    }
  });
}

core::Result<std::unique_ptr<k8s::Connection>> ConnectRecorded(const nlohmann::json& access, Context& context) {
  if (access.contains("gke_cluster")) {
    auto ref = workflow::ClusterRefFromName(access.value("gke_cluster", ""));
    if (!ref) return core::Fail(ref.error());
    return ConnectGkeCluster(*ref, "", context);
  }
  KubeAccessFlags flags;
  flags.kubeconfig = access.value("kubeconfig", "");
  flags.context = access.value("context", "");
  return ConnectCluster(flags, context);
}

// What the ledger recorded is not the user's input: a kubeconfig that is no longer readable is
// a failed precondition of this cleanup (exit 1), not a usage error.
core::Error FromLedger(core::Error error) {
  if (core::IsUsageError(error)) error.kind = core::ErrorKind::kFailedPrecondition;
  return error;
}

// Ray and Kubernetes, reached from what the ledger entry says.
workflow::CleanupReach MakeReach(Context& context) {
  workflow::CleanupReach reach;
  reach.connect_cluster = [&context](const nlohmann::json& access) -> core::Result<std::unique_ptr<k8s::Connection>> {
    auto connection = ConnectRecorded(access, context);
    if (!connection) return core::Fail(FromLedger(connection.error()));
    return connection;
  };
  reach.ray_jobs = [&context](const nlohmann::json& details) -> core::Result<workflow::RayJobsAccess> {
    auto keep = [](std::unique_ptr<RaySession> session) {
      std::shared_ptr<RaySession> shared = std::move(session);
      return workflow::RayJobsAccess{shared, shared->client.get()};
    };
    if (details.contains("raycluster")) {
      RayClusterFlags flags;
      flags.name = details.value("raycluster", "");
      const auto cluster = details.value("access", nlohmann::json::object());
      if (cluster.contains("gke_cluster")) {
        auto ref = workflow::ClusterRefFromName(cluster.value("gke_cluster", ""));
        if (!ref) return core::Fail(ref.error());
        flags.access.gke_ref = *ref;
      }
      flags.access.kubeconfig = cluster.value("kubeconfig", "");
      flags.access.context = cluster.value("context", "");
      flags.access.ns = details.value("namespace", "");
      auto session = ConnectRayCluster(flags, {}, context);
      if (!session) return core::Fail(FromLedger(session.error()));
      return keep(std::move(*session));
    }
    ray::ConnectionFlags flags;
    flags.address = details.value("address", "");
    auto options = ResolveRayClient(flags, context);
    if (!options) return core::Fail(FromLedger(options.error()));
    auto session = context.stack().Ray(std::move(*options));
    if (!session) return core::Fail(session.error());
    return keep(std::move(*session));
  };
  return reach;
}

core::Result<int> RunCleanupCommand(const CleanupOptions& options, Context& context) {
  if (options.all && !options.run_id.empty()) {
    return core::Fail(core::Error::Usage("--all and --run are exclusive: pass one"));
  }
  std::string dir = options.state_dir.empty() ? state::LedgerStore::DefaultDir(context.env) : options.state_dir;
  if (options.scan.scan || options.scan.delete_leaked) {
    return RunScan(context, options.scan, options.run_id, dir, options.yes);
  }
  if (options.detailed_exitcode && !context.global.dry_run) {
    return core::Fail(core::Error::Usage("--detailed-exitcode: only with --dry-run"));
  }
  auto timeout = ParseTimeoutFlag("--timeout", options.timeout);
  if (!timeout) return core::Fail(timeout.error());
  Stack& stack = context.stack();
  state::LedgerStore& store = stack.Ledger(dir);
  auto plans = LoadPlans(options, context, store);
  if (!plans) return core::Fail(plans.error());
  size_t to_delete = 0;
  for (const auto& plan : *plans) to_delete += plan.deletes.size();
  if (context.global.dry_run) {
    PrintPlans(context, *plans);
    return options.detailed_exitcode && to_delete > 0 ? core::kExitChangesPending : core::kExitOk;
  }
  if (to_delete > 0) {
    auto confirmed = ConfirmDelete(context, options.yes, "cleanup",
                                   "Delete " + std::to_string(to_delete) + " resource(s) recorded in the run ledger?");
    if (!confirmed) return core::Fail(confirmed.error());
    if (!*confirmed) {
      context.err << "Nothing deleted.\n";
      return core::kExitOk;
    }
  }
  // Credentials are resolved only when a run holds Google resources: a run of Kubernetes objects
  // and Ray jobs cleans up without them.
  http::Transport* google = nullptr;
  for (const auto& plan : *plans) {
    if (!NeedsGoogle(plan)) continue;
    auto transport = stack.Google();
    if (!transport) return core::Fail(transport.error());
    google = *transport;
    break;
  }
  auto reach = MakeReach(context);
  std::vector<std::pair<std::string, std::vector<workflow::Outcome>>> done;
  for (const auto& plan : *plans) {
    auto env = stack.Provision(google);
    env.ledger = &store;
    env.run_id = plan.run_id;
    env.poll.timeout = *timeout;
    auto outcomes = workflow::RunCleanup(env, plan, reach);
    if (!outcomes) {
      core::Error error = FromLedger(outcomes.error());
      error.message += "\n  what is left is in the run ledger (tputrain runs show --run " + plan.run_id +
                       "); run 'tputrain cleanup --run " + plan.run_id + " --yes' again to finish";
      return core::Fail(error);
    }
    if (plan.kept.empty()) (void)store.ClearCurrentRun(plan.run_id);
    done.emplace_back(plan.run_id, std::move(*outcomes));
  }
  PrintDone(context, done, *plans);
  return core::kExitOk;
}

}  // namespace

void SetupCleanupCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<CleanupOptions>();
  auto* cleanup = root.add_subcommand(
      "cleanup", "Delete everything a run created (Ray jobs, Kubernetes objects, node pools, clusters, TPU VMs, "
                 "buckets, IAM members, service accounts), in that order");
  cleanup->add_option("--run", options->run_id, "Run to clean up (default: TPUTRAIN_RUN, else the current run)");
  cleanup->add_flag("--all", options->all, "Clean up every run in the state directory");
  cleanup->add_option("--state-dir", options->state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)");
  cleanup->add_flag("-y,--yes", options->yes, "Delete without asking (needed without a terminal; so is --quiet)");
  cleanup->add_flag("--force", options->force, "Also delete resources the run adopted (they existed before)");
  cleanup->add_flag("--detailed-exitcode", options->detailed_exitcode,
                    "With --dry-run: exit 3 when there is something to delete, 0 when nothing");
  cleanup->add_option("--timeout", options->timeout, "Stop waiting for an operation after this long (e.g. 30m)");
  AddScanFlags(cleanup, options->scan);
  cleanup->footer(
      "Exit codes: 0 done (or nothing to do), 1 a delete failed (run it again to finish), 2 usage, 3 with\n"
      "--dry-run --detailed-exitcode: something to delete, 4 no credentials, 130 interrupted (run it again).\n"
      "Examples:\n"
      "  tputrain cleanup --yes\n"
      "  tputrain cleanup --run tr-20261122-120000-ab12 --dry-run --detailed-exitcode\n"
      "  tputrain cleanup --scan --delete-leaked --yes");
  cleanup->callback([options, &context] { context.outcome = RunCleanupCommand(*options, context); });
}

}  // namespace tputrain::cli
