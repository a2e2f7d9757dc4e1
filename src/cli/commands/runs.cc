#include <algorithm>
#include <cstdio>

#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "parse_error.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/run_refresh.h"
#include "tputrain/workflow/spend.h"

namespace tputrain::cli {
namespace {

using workflow::FormatMoney;

std::string FormatHours(double hours) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", hours);
  return text;
}

struct RunsOptions {
  std::string state_dir;
  std::string run_id;
  bool refresh = false;
};

nlohmann::json ToJson(const workflow::RefreshedEntry& entry) {
  return {{"kind", state::KindName(entry.kind)},
          {"name", entry.name},
          {"observed", entry.observed},
          {"before", state::EntryStateName(entry.before)},
          {"after", state::EntryStateName(entry.after)}};
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

core::Result<int> RunRunsList(const RunsOptions& options, Context& context) {
  state::LedgerStore& store = context.stack().Ledger(options.state_dir);
  auto runs = store.ListRuns();
  if (!runs) return core::Fail(runs.error());
  auto current = store.CurrentRun();
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& run_id : *runs) {
    auto ledger = store.Load(run_id);
    if (!ledger) {
      context.reporter().Warn(ledger.error().message);
      continue;
    }
    bool is_current = current && *current == run_id;
    const auto spend = workflow::SpendOf(*ledger, context.stack().clock().WallNow());
    const bool priced = !spend.resources.empty();
    json.push_back({{"run_id", run_id},
                    {"created_at", ledger->created_at},
                    {"current", is_current},
                    {"resources", ledger->entries.size()},
                    {"live", ledger->Live().size()},
                    {"spent", priced ? nlohmann::json(spend.spent) : nlohmann::json(nullptr)},
                    {"per_hour_now", priced ? nlohmann::json(spend.per_hour_now) : nlohmann::json(nullptr)}});
    rows.push_back({run_id + (is_current ? " *" : ""), ledger->created_at, std::to_string(ledger->entries.size()),
                    std::to_string(ledger->Live().size()), priced ? FormatMoney(spend.spent, spend.currency) : "-",
                    priced ? FormatMoney(spend.per_hour_now, spend.currency) : "-"});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    PrintListTable(context, out, {"run", "created", "resources", "live", "spent", "$/h now"}, rows,
                   "No runs recorded yet.");
    if (std::any_of(json.begin(), json.end(), [](const auto& run) { return !run["spent"].is_null(); })) {
      out << "spent, $/h now: TPU estimates at list price, before discounts and taxes\n";
    }
  });
  return core::kExitOk;
}

core::Result<int> RunRunsShow(const RunsOptions& options, Context& context) {
  state::LedgerStore& store = context.stack().Ledger(options.state_dir);
  auto run_id = store.ResolveRun(options.run_id, context.env, false);
  if (!run_id) return core::Fail(run_id.error());
  if (run_id->empty())
    return core::Fail(core::Error::Usage("no current run: pass --run ID (see 'tputrain runs list')"));
  std::vector<workflow::RefreshedEntry> refreshed;
  if (options.refresh) {
    // --dry-run: the reads and what they show, the ledger left as it is.
    auto entries = workflow::RefreshRun(context.stack(), store, *run_id);
    if (!entries) return core::Fail(entries.error());
    refreshed = std::move(*entries);
  }
  auto ledger = store.Load(*run_id);
  if (!ledger) return core::Fail(ledger.error());
  const auto spend = workflow::SpendOf(*ledger, context.stack().clock().WallNow());
  nlohmann::json json = state::ToJson(*ledger);
  json["spend"] = spend.resources.empty() ? nlohmann::json(nullptr) : workflow::ToJson(spend);
  if (options.refresh) {
    json["refreshed"] = nlohmann::json::array();
    for (const auto& entry : refreshed) json["refreshed"].push_back(ToJson(entry));
  }
  PrintResult(context, json, [&](std::ostream& out) {
    out << "run " << ledger->run_id << " (created " << ledger->created_at << ")\n";
    for (const auto& entry : refreshed) {
      if (entry.after != entry.before) out << ChangeLine(entry) << "\n";
    }
    const bool wide = context.global.wide();
    std::vector<std::vector<std::string>> rows;
    for (const auto& entry : ledger->entries) {
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
  auto options = std::make_shared<RunsOptions>();
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
