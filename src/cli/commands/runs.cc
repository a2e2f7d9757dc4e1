#include <algorithm>
#include <cstdio>

#include "commands/commands.h"
#include "output/resource_cells.h"
#include "parse_error.h"
#include "stack.h"
#include "tputrain/cli/output.h"
#include "tputrain/state/ledger.h"
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
};

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
    PrintTable(out, {"run", "created", "resources", "live", "spent", "$/h now"}, rows);
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
  auto ledger = store.Load(*run_id);
  if (!ledger) return core::Fail(ledger.error());
  const auto spend = workflow::SpendOf(*ledger, context.stack().clock().WallNow());
  nlohmann::json json = state::ToJson(*ledger);
  json["spend"] = spend.resources.empty() ? nlohmann::json(nullptr) : workflow::ToJson(spend);
  PrintResult(context, json, [&](std::ostream& out) {
    out << "run " << ledger->run_id << " (created " << ledger->created_at << ")\n";
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
      costs.push_back({std::string(state::KindName(resource.kind)), resource.name.substr(resource.name.rfind('/') + 1),
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
  show->footer("Example:\n  tputrain runs show --run tr-20261122-120000-ab12");
  show->callback([options, &context] { context.outcome = RunRunsShow(*options, context); });
}

}  // namespace tputrain::cli
