// tputrain cleanup [--run ID | --all] [--force] [--dry-run [--detailed-exitcode]] [--scan [--delete-leaked]]
#include "commands/cleanup_scan.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/cleanup_runs.h"

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
  CLI::Option* run_option = nullptr;
};

void PrintPlans(Context& context, const std::vector<workflow::CleanupPlan>& plans) {
  PrintResult(context, workflow::ToJson(plans), [&](std::ostream& out) {
    if (plans.empty()) out << "No run to clean up.\n";
    for (const auto& plan : plans) {
      out << "run " << plan.run_id << ": " << plan.deletes.size() << " to delete, in this order\n";
      const bool wide = context.global.wide();
      std::vector<std::vector<std::string>> rows;
      for (const auto& list : {&plan.deletes, &plan.kept}) {
        for (const auto& item : *list) {
          const auto& entry = item.entry;
          auto cells = CellsOf(entry.kind, entry.name, entry.details, wide);
          rows.push_back({entry.KindName(), cells.name, cells.location, std::string(state::EntryStateName(entry.state)),
                          workflow::CleanupActionPhrase(item.step, OperationCell(entry.operation, wide))});
        }
      }
      if (!rows.empty()) PrintTable(out, {"kind", "name", "location", "state", "action"}, rows, kResourceColumns);
    }
  });
}

void PrintDone(Context& context, const workflow::CleanedUp& cleaned) {
  const auto& done = cleaned.runs;
  const auto& spends = cleaned.spends;
  PrintResult(context, workflow::ToJson(cleaned), [&](std::ostream& out) {
    if (done.empty()) out << "No run to clean up.\n";
    const bool wide = context.global.wide();
    for (const auto& run : done) {
      std::vector<std::vector<std::string>> rows = OutcomeRows(run.outcomes, wide);
      for (const auto& item : run.kept) {
        auto cells = CellsOf(item.entry.kind, item.entry.name, item.entry.details, wide);
        rows.push_back({item.entry.KindName(), cells.name, cells.location, item.Phrase()});
      }
      out << "run " << run.run_id << ": " << (rows.empty() ? "nothing to delete" : "cleaned up") << "\n";
      if (!rows.empty()) PrintTable(out, {"kind", "name", "location", "result"}, rows, kResourceColumns);
      if (auto spend = spends.find(run.run_id); spend != spends.end()) {
        out << workflow::TotalLine(run.run_id, spend->second) << "\n";
      }
    }
  });
}

core::Result<int> RunCleanupCommand(const CleanupOptions& options, Context& context) {
  if (options.run_option->count() > 0 && options.run_id.empty()) {
    return core::Fail(core::Error::Usage("--run: expected a run id (tputrain runs list), got ''"));
  }
  // --expired too: alone it would be ignored, and the run's whole cleanup done instead.
  if (options.scan.scan || options.scan.delete_leaked || options.scan.expired) {
    return RunScan(context, options.scan, options.run_id, options.state_dir, options.yes);
  }
  workflow::CleanupRequest request{{options.run_id, options.all, options.force},
                                   options.state_dir,
                                   options.timeout,
                                   options.detailed_exitcode,
                                   context.global.dry_run};
  auto planned = workflow::PlanCleanup(context.stack(), request);
  if (!planned) return core::Fail(planned.error());
  const auto& plans = planned->runs.plans;
  // A corrupt ledger is left alone and fails the command, after the healthy runs are done.
  auto finish = [&](int code) -> core::Result<int> {
    if (!planned->runs.unreadable.empty()) return core::Fail(workflow::Unreadable(planned->runs.unreadable));
    return code;
  };
  const size_t to_delete = planned->to_delete;
  if (context.global.dry_run) {
    PrintPlans(context, plans);
    return finish(options.detailed_exitcode && to_delete > 0 ? core::kExitChangesPending : core::kExitOk);
  }
  if (to_delete > 0) {
    auto confirmed = ConfirmDelete(
        context, options.yes, "cleanup",
        "Delete " + core::Counted(static_cast<long long>(to_delete), "resource") + " recorded in the run ledger?");
    if (!confirmed) return core::Fail(confirmed.error());
    if (!*confirmed) return NothingDeleted(context);
  }
  auto cleaned = workflow::CarryOutCleanup(context.stack(), *planned);
  if (!cleaned) return core::Fail(cleaned.error());
  PrintDone(context, *cleaned);
  return finish(core::kExitOk);
}

}  // namespace

void SetupCleanupCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<CleanupOptions>();
  auto* cleanup = root.add_subcommand(
      "cleanup",
      "Delete everything a run created (Ray jobs, Kubernetes objects, node pools, clusters, TPU VMs, "
      "buckets, IAM members, service accounts), in that order");
  options->run_option =
      cleanup->add_option("--run", options->run_id, "Run to clean up (default: TPUTRAIN_RUN, else the current run)");
  cleanup->add_flag("--all", options->all, "Clean up every run in the state directory");
  cleanup->add_option("--state-dir", options->state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
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
