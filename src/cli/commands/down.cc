// tputrain down -f STACK | --run NAME: what a stack made, deleted through the run's cleanup
// (workloads first, then pools, clusters, storage and identities; each tier's deletes at once).
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/stack_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

struct DownOptions {
  StackFlags stack;
  std::string run;
  bool yes = false;
  bool force = false;
};

core::Result<std::string> RunOf(const DownOptions& options, Context& context) {
  if (options.stack.file.empty() == options.run.empty()) {
    return core::Fail(core::Error::Usage("-f: give the stack file, or --run with the stack's name (one of them)"));
  }
  if (!options.run.empty()) return options.run;
  auto stack = ReadStackFile(context, options.stack.file);
  if (!stack) return core::Fail(stack.error());
  return stack->name;
}

core::Result<int> RunDown(const DownOptions& options, Context& context) {
  auto run = RunOf(options, context);
  if (!run) return core::Fail(run.error());
  auto timeout = ParseTimeoutFlag("--timeout", options.stack.timeout);
  if (!timeout) return core::Fail(timeout.error());
  workflow::Root& stack = context.stack();
  state::LedgerStore& store = stack.Ledger(options.stack.state_dir);
  auto runs = workflow::PlanRuns(store, {*run, false, options.force}, context.env);
  if (!runs) return core::Fail(runs.error());
  const size_t to_delete = workflow::DeleteCount(runs->plans);
  if (context.global.dry_run) {
    nlohmann::json json = workflow::ToJson(runs->plans);
    PrintResult(context, json, [&](std::ostream& out) {
      for (const auto& plan : runs->plans) {
        out << "run " << plan.run_id << ": " << plan.deletes.size() << " to delete, in this order\n";
        for (const auto& item : plan.deletes) out << "  " << item.entry.KindName() << " " << item.entry.name << "\n";
      }
    });
    return core::kExitOk;
  }
  if (to_delete > 0) {
    auto confirmed = ConfirmDelete(
        context, options.yes, "down",
        "Delete the " + core::Counted(static_cast<long long>(to_delete), "resource") + " of run " + *run + "?");
    if (!confirmed) return core::Fail(confirmed.error());
    if (!*confirmed) return NothingDeleted(context);
  }
  http::Transport* google = nullptr;
  if (workflow::NeedsGoogle(runs->plans)) {
    auto transport = stack.Google();
    if (!transport) return core::Fail(transport.error());
    google = *transport;
  }
  workflow::CleanupRunsEnv env{store, stack.Provision(google), workflow::RecordedReach(stack), *timeout};
  auto done = workflow::CleanupRuns(env, runs->plans);
  if (!done) return core::Fail(done.error());
  // What `up` remembered as done went with what it ran on: a later `up` does it all again.
  (void)store.Update(*run, [](state::Ledger& ledger) { ledger.steps = nlohmann::json::object(); });
  PrintResult(context, workflow::ToJson(*done), [&](std::ostream& out) {
    for (const auto& cleaned : *done) {
      std::vector<std::vector<std::string>> rows = OutcomeRows(cleaned.outcomes, context.global.wide());
      for (const auto& item : cleaned.kept) {
        auto cells = CellsOf(item.entry.kind, item.entry.name, item.entry.details, context.global.wide());
        rows.push_back({item.entry.KindName(), cells.name, cells.location, item.Phrase()});
      }
      out << "run " << cleaned.run_id << ": " << (rows.empty() ? "nothing to delete" : "down") << "\n";
      if (!rows.empty()) PrintTable(out, {"kind", "name", "location", "result"}, rows, kResourceColumns);
    }
    if (done->empty()) out << "run " << *run << ": nothing to delete\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupDownCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<DownOptions>();
  auto* down = root.add_subcommand(
      "down", "Delete what a stack file's `up` made, workloads first, each tier's deletes at once (its run's cleanup)");
  down->add_option("-f,--file", options->stack.file, "The stack file (its name is the run)")->type_name("FILE");
  down->add_option("--run", options->run, "The stack's name, without its file");
  down->add_option("--state-dir", options->stack.state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
  down->add_flag("-y,--yes", options->yes, "Delete without asking (needed without a terminal; so is --quiet)");
  down->add_flag("--force", options->force, "Also delete what the stack adopted (it existed before)");
  down->add_option("--timeout", options->stack.timeout, "Stop waiting for an operation after this long (e.g. 30m)");
  down->footer(
      "What existed before `up` (adopted) is kept unless --force. Run it again to finish an interrupted one.\n"
      "Examples:\n"
      "  tputrain down -f examples/001-train-llama3-8b-gke.yaml --yes\n"
      "  tputrain down --run train-llama3 --dry-run");
  down->callback([options, &context] { context.outcome = RunDown(*options, context); });
}

}  // namespace tputrain::cli
