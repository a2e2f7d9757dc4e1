#include "commands/cleanup_scan.h"

#include "commands/provision_common.h"
#include "output/output.h"
#include "output/prices_brief.h"
#include "output/resource_cells.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/scan.h"

namespace tputrain::cli {
namespace {

void PrintLeaked(Context& context, const workflow::LeakScan& scan, const std::vector<workflow::Outcome>* deleted,
                 const std::string& state_dir_flag) {
  const auto& leaked = scan.leaked;
  const workflow::Prices* prices = scan.prices ? &*scan.prices : nullptr;
  const nlohmann::json json = workflow::ToJson(scan, deleted);
  const double total = json["per_hour"].get<double>();
  const std::string currency = json["currency"].get<std::string>();
  PrintResult(context, json, [&](std::ostream& out) {
    if (leaked.empty()) {
      if (scan.request.expired) {
        out << "Nothing expired: no resource's " << workflow::kExpiresLabel << " label is in the past.\n";
      } else {
        out << "No leaked resources: every resource with the " << workflow::kRunLabel << " label is in a ledger.\n";
      }
      return;
    }
    const bool wide = context.global.wide();
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : leaked) {
      auto cells = CellsOf(item.kind, item.resource, nlohmann::json::object(), wide, item.name);
      auto per_hour = workflow::PerHour(item, prices);
      rows.push_back({std::string(state::KindName(item.kind)), cells.name,
                      item.location.empty() ? cells.location : item.location, item.run_id,
                      per_hour ? workflow::FormatMoney(*per_hour, currency) : (item.generation.empty() ? "" : "?")});
    }
    PrintTable(out, {"kind", "name", "location", "run", "$/h"}, rows, kResourceColumns);
    for (const auto& item : leaked) {
      if (!item.kept.empty()) out << state::KindName(item.kind) << " " << item.name << " stays: " << item.kept << "\n";
    }
    out << (deleted != nullptr ? "TPU chips were burning " : "TPU chips burning ")
        << workflow::FormatMoney(total, currency) << "/h\n  (estimates at list price, before discounts and taxes)\n";
    if (prices != nullptr) out << PricesBrief(*prices) << "\n";
    if (deleted != nullptr) {
      out << "\n";
      PrintTable(out, {"kind", "name", "location", "result"}, OutcomeRows(*deleted, wide), kResourceColumns);
    } else {
      constexpr std::string_view kLead = "Delete them with: ";
      out << "\n"
          << kLead
          << FitCommand(workflow::DeleteLeakedCommand(scan.request, state_dir_flag), kLead.size(),
                        TableLayoutOf(out).width)
          << "\n";
    }
  });
}

}  // namespace

void AddScanFlags(CLI::App* cleanup, ScanFlags& flags) {
  cleanup->add_flag("--scan", flags.scan,
                    "List resources in the project labelled tputrain-run that no local ledger knows (leaked)");
  cleanup->add_flag("--delete-leaked", flags.delete_leaked, "With --scan: delete what the scan lists");
  cleanup->add_flag("--expired", flags.expired,
                    "With --scan: list what is past its tputrain-expires label (--ttl), whatever run made it, "
                    "ledgered or not");
}

core::Result<int> RunScan(Context& context, const ScanFlags& flags, const std::string& run_id,
                          const std::string& state_dir_flag, bool yes) {
  auto scan = workflow::ScanForLeaks(context.stack(), {flags.scan, flags.expired, flags.delete_leaked,
                                                       context.global.dry_run, run_id, state_dir_flag});
  if (!scan) return core::Fail(scan.error());
  // Runs whose ledger is unreadable were left out; the command fails naming them, at the end.
  auto finish = [&](int code) -> core::Result<int> {
    if (!scan->ledgered.unreadable.empty()) return core::Fail(workflow::Unreadable(scan->ledgered.unreadable));
    return code;
  };
  const auto& leaked = scan->leaked;
  if (!flags.delete_leaked || leaked.empty()) {
    PrintLeaked(context, *scan, nullptr, state_dir_flag);
    return finish(core::kExitOk);
  }
  auto confirmed = ConfirmDelete(
      context, yes, "--delete-leaked",
      "Delete the " +
          core::Counted(static_cast<long long>(leaked.size()), flags.expired ? "expired resource" : "leaked resource") +
          " listed?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto deleted = workflow::DeleteLeaks(context.stack(), *scan);
  if (!deleted) return core::Fail(deleted.error());
  PrintLeaked(context, *scan, &*deleted, state_dir_flag);
  return finish(core::kExitOk);
}

}  // namespace tputrain::cli
