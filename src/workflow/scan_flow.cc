// cleanup --scan: the checks, the ledgers and the scan, the prices of what it finds, the delete.
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "tputrain/core/gcp_location.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/scan.h"

namespace tputrain::workflow {

core::Result<LeakScan> ScanForLeaks(Root& root, const LeakScanRequest& request) {
  if (request.delete_leaked && !request.scan) return core::Fail(core::Error::Usage("--delete-leaked: needs --scan"));
  if (request.expired && !request.scan) return core::Fail(core::Error::Usage("--expired: needs --scan"));
  if (request.dry_run) {
    return core::Fail(core::Error::Usage(request.delete_leaked
                                             ? "--dry-run: a scan only reads; leave out --delete-leaked to see what "
                                               "it finds"
                                             : "--dry-run: a scan only reads; leave out --dry-run"));
  }
  // With no ledger to read, everything labelled would look leaked: a mistyped directory must not.
  const std::string state_dir =
      request.state_dir.empty() ? state::LedgerStore::DefaultDir(root.env()) : request.state_dir;
  if (std::error_code error; !std::filesystem::is_directory(state_dir, error)) {
    return core::Fail(core::Error::Usage("--state-dir: expected an existing directory, got '" + state_dir + "'"));
  }
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  auto location = LocationOrAll(*settings);
  if (!location) return core::Fail(location.error());
  LeakScan scan;
  scan.request = {*project, {}, {}, request.run_id};
  scan.request.expired = request.expired;
  scan.request.now_unix =
      std::chrono::duration_cast<std::chrono::seconds>(root.clock().WallNow().time_since_epoch()).count();
  if (*location != "-") {
    scan.request.locations = {*location};
    if (core::IsZone(*location)) scan.request.tpu_zones = {*location};
  }
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  auto ledgered = LedgeredKeys(root.Ledger(state_dir));
  if (!ledgered) return core::Fail(ledgered.error());
  scan.ledgered = std::move(*ledgered);
  auto env = root.Provision(*google);
  auto leaked = ScanLeaked(env, scan.request, scan.ledgered);
  if (!leaked) return core::Fail(leaked.error());
  scan.leaked = std::move(*leaked);
  // Prices only when something listed is a TPU slice: a scan of buckets needs none.
  if (std::any_of(scan.leaked.begin(), scan.leaked.end(), [](const auto& item) { return !item.generation.empty(); })) {
    auto prices = ReadTpuPrices(root);
    if (!prices) return core::Fail(prices.error());
    scan.prices = std::move(*prices);
  }
  return scan;
}

core::Result<std::vector<Outcome>> DeleteLeaks(Root& root, const LeakScan& scan) {
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  auto env = root.Provision(*google);
  return DeleteLeaked(env, scan.leaked);
}

nlohmann::json ToJson(const LeakScan& scan, const std::vector<Outcome>* deleted) {
  const Prices* prices = scan.prices ? &*scan.prices : nullptr;
  nlohmann::json json = {{"leaked", nlohmann::json::array()}};
  double total = 0;
  for (const auto& item : scan.leaked) {
    json["leaked"].push_back(ToJson(item));
    auto per_hour = PerHour(item, prices);
    json["leaked"].back()["per_hour"] = per_hour ? nlohmann::json(*per_hour) : nlohmann::json(nullptr);
    total += per_hour.value_or(0);
  }
  json["per_hour"] = total;
  json["currency"] = prices != nullptr ? prices->table.currency : "USD";
  if (prices != nullptr) {
    json["prices"] = {
        {"source", prices->table.source}, {"as_of", prices->table.as_of}, {"origin", PriceOriginName(prices->origin)}};
  }
  if (deleted != nullptr) json["deleted"] = ToJson(*deleted);
  return json;
}

}  // namespace tputrain::workflow
