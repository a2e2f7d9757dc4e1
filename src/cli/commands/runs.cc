#include <cstdio>

#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "parse_error.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/runs.h"

namespace tputrain::cli {
namespace {

using workflow::FormatMoney;

std::string FormatHours(double hours) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", hours);
  return text;
}

// One line per entry whose state the refresh changed: what the API said, and what follows.
std::string ChangeLine(const workflow::RefreshedEntry& entry) {
  std::string line = std::string(state::KindName(entry.kind)) + " " + entry.name + ": " +
                     std::string(state::EntryStateName(entry.after)) + " (the API says " + entry.observed + ")";
  if (entry.after == state::EntryState::kPreempted)
    return line + ": Google reclaimed its Spot capacity; it bills no more, and 'tputrain cleanup' deletes it";
  if (entry.after == state::EntryState::kDeleted) return line + ": deleted outside tputrain";
  if (entry.after == state::EntryState::kFailed) return line + ": unusable; 'tputrain cleanup' deletes it";
  return line;
}

core::Result<int> RunRunsList(const workflow::RunShowRequest& options, Context& context) {
  auto runs = workflow::ListRunSummaries(context.stack(), options.state_dir);
  if (!runs) return core::Fail(runs.error());
  std::vector<std::vector<std::string>> rows;
  bool any_priced = false;
  for (const auto& run : *runs) {
    const auto& spend = run.spend;
    const bool priced = !spend.resources.empty();
    any_priced = any_priced || priced;
    rows.push_back({run.run_id + (run.current ? " *" : ""), run.created_at, std::to_string(run.resources),
                    std::to_string(run.live), priced ? FormatMoney(spend.spent, spend.currency) : "-",
                    priced ? FormatMoney(spend.per_hour_now, spend.currency) : "-"});
  }
  PrintResult(context, workflow::ToJson(*runs), [&](std::ostream& out) {
    PrintListTable(context, out, {"run", "created", "resources", "live", "spent", "$/h now"}, rows,
                   "No runs recorded yet.");
    if (any_priced) out << "spent, $/h now: TPU estimates at list price, before discounts and taxes\n";
  });
  return core::kExitOk;
}

core::Result<int> RunRunsShow(const workflow::RunShowRequest& options, Context& context) {
  // --refresh under --dry-run: the reads and what they show, the ledger left as it is.
  auto shown = workflow::ShowRun(context.stack(), options);
  if (!shown) return core::Fail(shown.error());
  const auto& ledger = shown->ledger;
  const auto& spend = shown->spend;
  const auto refreshed = shown->refreshed.value_or(std::vector<workflow::RefreshedEntry>{});
  PrintResult(context, workflow::ToJson(*shown), [&](std::ostream& out) {
    out << "run " << ledger.run_id << " (created " << ledger.created_at << ")\n";
    for (const auto& entry : refreshed) {
      if (entry.after != entry.before) out << ChangeLine(entry) << "\n";
    }
    const bool wide = context.global.wide();
    std::vector<std::vector<std::string>> rows;
    for (const auto& entry : ledger.entries) {
      auto cells = CellsOf(entry.kind, entry.name, entry.details, wide);
      // A settled entry's operation is history (--format json and wide keep it); a pending one's
      // is what cleanup will wait for.
      const bool pending = entry.state == state::EntryState::kCreating || entry.state == state::EntryState::kDeleting;
      rows.push_back({entry.KindName(), cells.name, cells.location, std::string(state::EntryStateName(entry.state)),
                      entry.owned ? "yes" : "no (adopted)",
                      pending || wide ? OperationCell(entry.operation, wide) : ""});
    }
    PrintTable(out, {"kind", "name", "location", "state", "owned", "operation"}, rows, kResourceColumns);
    if (spend.resources.empty()) return;
    // What its TPUs cost: chips × the rate recorded at create × the hours they were READY.
    std::vector<std::vector<std::string>> costs;
    for (const auto& resource : spend.resources) {
      const auto& cost = resource.cost;
      const auto money = [&](std::optional<double> amount) {
        return amount ? FormatMoney(*amount, cost.currency) : std::string("?");
      };
      const bool fee = resource.cluster_fee;  // a flat fee: no chips, no capacity mode
      costs.push_back({std::string(state::KindName(resource.kind)), core::LastSegment(resource.name),
                       fee ? "-" : std::to_string(cost.chips),
                       fee ? "cluster fee" : std::string(catalog::CapacityModeName(cost.capacity)),
                       fee ? "-" : money(cost.per_chip_hour), money(resource.per_hour_now), FormatHours(resource.hours),
                       money(resource.spent)});
    }
    out << "\n";
    PrintTable(out, {"kind", "name", "chips", "capacity", "$/chip-h", "$/h now", "hours", "spent"}, costs);
    out << workflow::SpendLine(spend) << "\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupRunsCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<workflow::RunShowRequest>();
  auto* runs = root.add_subcommand("runs", "Show the ledgers of what tputrain created, one per run");
  runs->require_subcommand(1);
  // Named, it must exist: runs of a mistyped directory are not "no runs" (the default
  // directory is, on a machine that never recorded one).
  runs->add_option("--state-dir", options->state_dir,
                   "Ledger directory (default: $XDG_STATE_HOME/tputrain or ~/.local/state/tputrain)")
      ->type_name("DIR")
      ->check(ExistingDirectory());
  auto* list = runs->add_subcommand("list", "List runs; * marks the current one");
  list->footer("Example:\n  tputrain runs list --format json");
  list->callback([options, &context] { context.outcome = RunRunsList(*options, context); });
  auto* show = runs->add_subcommand("show", "Show every resource of a run and its state");
  show->add_option("--run", options->run_id, "Run id (default: TPUTRAIN_RUN, else the current run)");
  show->add_flag("--refresh", options->refresh,
                 "Read the run's TPU VMs, queued resources and node pools from their APIs first, and record "
                 "what happened outside tputrain (Spot preemption, a pool in ERROR, a manual delete)");
  show->footer(
      "Examples:\n  tputrain runs show --run tr-20261122-120000-ab12\n  tputrain runs show --refresh --format json");
  show->callback([options, &context] { context.outcome = RunRunsShow(*options, context); });
}

}  // namespace tputrain::cli
