#include "commands/cleanup_scan.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands/prices_common.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/resource_cells.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/scan.h"

namespace tputrain::cli {
namespace {

void PrintLeaked(Context& context, const std::vector<workflow::LeakedResource>& leaked,
                 const std::vector<workflow::Outcome>* deleted, const workflow::Prices* prices,
                 const workflow::ScanRequest& request, const std::string& state_dir_flag) {
  const bool expired = request.expired;
  nlohmann::json json = {{"leaked", nlohmann::json::array()}};
  double total = 0;
  for (const auto& item : leaked) {
    json["leaked"].push_back(workflow::ToJson(item));
    auto per_hour = workflow::PerHour(item, prices);
    json["leaked"].back()["per_hour"] = per_hour ? nlohmann::json(*per_hour) : nlohmann::json(nullptr);
    total += per_hour.value_or(0);
  }
  const std::string currency = prices != nullptr ? prices->table.currency : "USD";
  json["per_hour"] = total;
  json["currency"] = currency;
  if (prices != nullptr) {
    json["prices"] = {{"source", prices->table.source},
                      {"as_of", prices->table.as_of},
                      {"origin", workflow::PriceOriginName(prices->origin)}};
  }
  if (deleted != nullptr) json["deleted"] = workflow::ToJson(*deleted);
  PrintResult(context, json, [&](std::ostream& out) {
    if (leaked.empty()) {
      if (expired) {
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
          << FitCommand(workflow::DeleteLeakedCommand(request, state_dir_flag), kLead.size(), TableLayoutOf(out).width)
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
                          const std::string& state_dir, const std::string& state_dir_flag, bool yes) {
  if (flags.delete_leaked && !flags.scan) return core::Fail(core::Error::Usage("--delete-leaked: needs --scan"));
  if (flags.expired && !flags.scan) return core::Fail(core::Error::Usage("--expired: needs --scan"));
  if (context.global.dry_run) {
    return core::Fail(core::Error::Usage(flags.delete_leaked
                                             ? "--dry-run: a scan only reads; leave out --delete-leaked to see what "
                                               "it finds"
                                             : "--dry-run: a scan only reads; leave out --dry-run"));
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
  request.expired = flags.expired;
  request.now_unix =
      std::chrono::duration_cast<std::chrono::seconds>(context.stack().clock().WallNow().time_since_epoch()).count();
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
  // Prices only when something listed is a TPU slice: a scan of buckets needs none.
  std::optional<workflow::Prices> prices;
  if (std::any_of(leaked->begin(), leaked->end(), [](const auto& item) { return !item.generation.empty(); })) {
    auto read = workflow::ReadTpuPrices(context.stack());
    if (!read) return core::Fail(read.error());
    prices = std::move(*read);
  }
  const workflow::Prices* priced = prices ? &*prices : nullptr;
  if (!flags.delete_leaked || leaked->empty()) {
    PrintLeaked(context, *leaked, nullptr, priced, request, state_dir_flag);
    return finish(core::kExitOk);
  }
  auto confirmed = ConfirmDelete(context, yes, "--delete-leaked",
                                 "Delete the " +
                                     core::Counted(static_cast<long long>(leaked->size()),
                                                   flags.expired ? "expired resource" : "leaked resource") +
                                     " listed?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto deleted = workflow::DeleteLeaked(env, *leaked);
  if (!deleted) return core::Fail(deleted.error());
  PrintLeaked(context, *leaked, &*deleted, priced, request, state_dir_flag);
  return finish(core::kExitOk);
}

}  // namespace tputrain::cli
