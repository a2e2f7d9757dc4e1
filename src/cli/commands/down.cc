// tputrain down -f STACK | --run NAME: what a stack made, deleted through the run's cleanup
// (workloads first, then pools, clusters, storage and identities; each tier's deletes at once).
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/stack_session.h"

namespace tputrain::cli {
namespace {

struct DownOptions {
  workflow::StackDownRequest request;
  bool yes = false;
};

core::Result<int> RunDown(const DownOptions& options, Context& context) {
  workflow::StackDownRequest request = options.request;
  request.dry_run = context.global.dry_run;
  auto planned = workflow::PlanStackDown(context.stack(), request);
  if (!planned) return core::Fail(planned.error());
  const std::string& run = planned->run;
  const auto& plans = planned->cleanup.runs.plans;
  const size_t to_delete = planned->cleanup.to_delete;
  if (context.global.dry_run) {
    PrintResult(context, workflow::ToJson(plans), [&](std::ostream& out) {
      for (const auto& plan : plans) {
        out << "run " << plan.run_id << ": " << plan.deletes.size() << " to delete, in this order\n";
        for (const auto& item : plan.deletes) out << "  " << item.entry.KindName() << " " << item.entry.name << "\n";
      }
    });
    return core::kExitOk;
  }
  if (to_delete > 0) {
    auto confirmed = ConfirmDelete(
        context, options.yes, "down",
        "Delete the " + core::Counted(static_cast<long long>(to_delete), "resource") + " of run " + run + "?");
    if (!confirmed) return core::Fail(confirmed.error());
    if (!*confirmed) return NothingDeleted(context);
  }
  auto done = workflow::CarryOutStackDown(context.stack(), *planned);
  if (!done) return core::Fail(done.error());
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
    if (done->empty()) out << "run " << run << ": nothing to delete\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupDownCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<DownOptions>();
  auto* down = root.add_subcommand(
      "down", "Delete what a stack file's `up` made, workloads first, each tier's deletes at once (its run's cleanup)");
  down->add_option("-f,--file", options->request.stack.file, "The stack file (its name is the run)")->type_name("FILE");
  down->add_option("--run", options->request.run, "The stack's name, without its file");
  down->add_option("--state-dir", options->request.stack.state_dir,
                   "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
  down->add_flag("-y,--yes", options->yes, "Delete without asking (needed without a terminal; so is --quiet)");
  down->add_flag("--force", options->request.force, "Also delete what the stack adopted (it existed before)");
  down->add_option("--timeout", options->request.stack.timeout,
                   "Stop waiting for an operation after this long (e.g. 30m)");
  down->footer(
      "What existed before `up` (adopted) is kept unless --force. Run it again to finish an interrupted one.\n"
      "Examples:\n"
      "  tputrain down -f examples/001-train-llama3-8b-gke.yaml --yes\n"
      "  tputrain down --run train-llama3 --dry-run");
  down->callback([options, &context] { context.outcome = RunDown(*options, context); });
}

}  // namespace tputrain::cli
