#include "tputrain/workflow/price_list.h"

#include "tputrain/core/gcp_location.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<PriceList> ListTpuPrices(Root& root, const PriceListRequest& request) {
  std::string region;
  // A location typed with --all-regions asks for two things; one set in the configuration is
  // what --all-regions overrides.
  if (request.all_regions && !request.location_flag.empty()) {
    return core::Fail(core::Error::Usage("--all-regions: conflicts with --location " + request.location_flag +
                                         "; give one (--location for its region's prices)"));
  }
  if (!request.all_regions) {
    auto settings = root.Settings();
    if (!settings) return core::Fail(settings.error());
    auto location = LocationOrAll(*settings);  // checked: a malformed one is a usage error
    if (!location) return core::Fail(location.error());
    if (*location != "-") region = core::RegionOf(*location);
  }
  auto prices = ReadTpuPrices(root);
  if (!prices) return core::Fail(prices.error());
  std::map<std::pair<std::string, std::string>, std::map<catalog::PriceKind, double>> grouped;
  for (const auto& price : prices->table.prices) {
    if (!region.empty() && price.region != region) continue;
    if (!request.accelerator.empty() && price.generation != request.accelerator) continue;
    grouped[{price.generation, price.region}][price.kind] = price.per_chip_hour;
  }
  PriceList list{std::move(*prices), {}};
  for (auto& [key, per_chip_hour] : grouped) list.rows.push_back({key.first, key.second, std::move(per_chip_hour)});
  return list;
}

nlohmann::json ToJson(const PriceList& list) {
  const auto& table = list.prices.table;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : list.rows) {
    nlohmann::json per_chip_hour = nlohmann::json::object();
    for (const auto& [kind, rate] : row.per_chip_hour) per_chip_hour[std::string(catalog::PriceKindKey(kind))] = rate;
    rows.push_back({{"generation", row.generation}, {"region", row.region}, {"per_chip_hour", per_chip_hour}});
  }
  return {{"currency", table.currency},
          {"source", table.source},
          {"as_of", table.as_of},
          {"origin", PriceOriginName(list.prices.origin)},
          {"prices", rows}};
}

}  // namespace tputrain::workflow
