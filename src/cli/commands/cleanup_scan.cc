#include "commands/cleanup_scan.h"

#include <filesystem>
#include <iostream>

#include "commands/provision_common.h"
#include "output/resource_cells.h"
#include "stack.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/scan.h"

namespace tputrain::cli {
namespace {

void PrintLeaked(Context& context, const std::vector<workflow::LeakedResource>& leaked,
                 const std::vector<workflow::Outcome>* deleted) {
  nlohmann::json json = {{"leaked", nlohmann::json::array()}};
  for (const auto& item : leaked) json["leaked"].push_back(workflow::ToJson(item));
  if (deleted != nullptr) json["deleted"] = workflow::ToJson(*deleted);
  PrintResult(context, json, [&](std::ostream& out) {
    if (leaked.empty()) {
      out << "No leaked resources: every resource with the " << workflow::kRunLabel << " label is in a ledger.\n";
      return;
    }
    const bool wide = context.global.wide();
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : leaked) {
      auto cells = CellsOf(item.kind, item.resource, nlohmann::json::object(), wide, item.name);
      rows.push_back({std::string(state::KindName(item.kind)), cells.name,
                      item.location.empty() ? cells.location : item.location, item.run_id});
    }
    PrintTable(out, {"kind", "name", "location", "run"}, rows, kResourceColumns);
    if (deleted != nullptr) {
      out << "\n";
      PrintTable(out, {"kind", "name", "location", "result"}, OutcomeRows(*deleted, wide), kResourceColumns);
    } else {
      out << "\nDelete them with: tputrain cleanup --scan --delete-leaked --yes\n";
    }
  });
}

}  // namespace

void AddScanFlags(CLI::App* cleanup, ScanFlags& flags) {
  cleanup->add_flag("--scan", flags.scan,
                    "List resources in the project labelled tputrain-run that no local ledger knows (leaked)");
  cleanup->add_flag("--delete-leaked", flags.delete_leaked, "With --scan: delete what the scan lists");
}

core::Result<int> RunScan(Context& context, const ScanFlags& flags, const std::string& run_id,
                          const std::string& state_dir, bool yes) {
  if (flags.delete_leaked && !flags.scan) return core::Fail(core::Error::Usage("--delete-leaked: needs --scan"));
  if (context.global.dry_run) {
    return core::Fail(
        core::Error::Usage("--dry-run: a scan only reads; leave out --delete-leaked to see what it finds"));
  }
  // With no ledger to read, everything labelled would look leaked: a mistyped directory must not.
  if (std::error_code error; !state_dir.empty() && !std::filesystem::is_directory(state_dir, error)) {
    return core::Fail(core::Error::Usage("--state-dir: expected an existing directory, got '" + state_dir + "'"));
  }
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto location = LocationOrAll(context);
  if (!location) return core::Fail(location.error());
  workflow::ScanRequest request{*project, {}, {}, run_id};
  if (*location != "-") {
    request.locations = {*location};
    if (core::IsZone(*location)) request.tpu_zones = {*location};
  }
  auto google = context.stack().Google();
  if (!google) return core::Fail(google.error());
  auto ledgered = workflow::LedgeredKeys(context.stack().Ledger(state_dir));
  if (!ledgered) return core::Fail(ledgered.error());
  auto env = context.stack().Provision(*google);
  auto leaked = workflow::ScanLeaked(env, request, *ledgered);
  if (!leaked) return core::Fail(leaked.error());
  // Runs whose ledger is unreadable were left out; the command fails naming them, at the end.
  auto finish = [&](int code) -> core::Result<int> {
    if (!ledgered->unreadable.empty()) return core::Fail(workflow::Unreadable(ledgered->unreadable));
    return code;
  };
  if (!flags.delete_leaked || leaked->empty()) {
    PrintLeaked(context, *leaked, nullptr);
    return finish(core::kExitOk);
  }
  auto confirmed = ConfirmDelete(context, yes, "--delete-leaked",
                                 "Delete these " + std::to_string(leaked->size()) + " leaked resource(s)?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto deleted = workflow::DeleteLeaked(env, *leaked);
  if (!deleted) return core::Fail(deleted.error());
  PrintLeaked(context, *leaked, &*deleted);
  return finish(core::kExitOk);
}

}  // namespace tputrain::cli
