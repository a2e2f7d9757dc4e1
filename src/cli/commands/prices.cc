// tputrain prices: TPU list prices per chip-hour, from the Cloud Billing Catalog API.
#include <map>

#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/prices_brief.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/workflow/spend.h"

namespace tputrain::cli {
namespace {

struct PricesOptions {
  bool all_regions = false;
  std::string accelerator;
};

core::Result<int> RunPrices(const PricesOptions& options, Context& context) {
  std::string region;
  // A location typed with --all-regions asks for two things; one set in the configuration is
  // what --all-regions overrides.
  if (options.all_regions && !context.global.location.empty()) {
    return core::Fail(core::Error::Usage("--all-regions: conflicts with --location " + context.global.location +
                                         "; give one (--location for its region's prices)"));
  }
  if (!options.all_regions) {
    auto location = LocationOrAll(context);  // checked: a malformed one is a usage error
    if (!location) return core::Fail(location.error());
    if (*location != "-") region = core::RegionOf(*location);
  }
  auto prices = workflow::ReadTpuPrices(context.stack());
  if (!prices) return core::Fail(prices.error());
  const auto& table = prices->table;
  // One row per generation and region, a column per way of buying.
  std::map<std::pair<std::string, std::string>, nlohmann::json> grouped;
  for (const auto& price : table.prices) {
    if (!region.empty() && price.region != region) continue;
    if (!options.accelerator.empty() && price.generation != options.accelerator) continue;
    grouped[{price.generation, price.region}][std::string(catalog::PriceKindKey(price.kind))] = price.per_chip_hour;
  }
  nlohmann::json rows_json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& [key, per_chip_hour] : grouped) {
    rows_json.push_back({{"generation", key.first}, {"region", key.second}, {"per_chip_hour", per_chip_hour}});
    std::vector<std::string> row = {key.first, key.second};
    for (auto kind : catalog::kPriceKinds) {
      auto it = per_chip_hour.find(std::string(catalog::PriceKindKey(kind)));
      row.push_back(it == per_chip_hour.end() ? "-" : workflow::FormatMoney(it->get<double>(), table.currency));
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json json = {{"currency", table.currency},
                         {"source", table.source},
                         {"as_of", table.as_of},
                         {"origin", workflow::PriceOriginName(prices->origin)},
                         {"prices", rows_json}};
  PrintResult(context, json, [&](std::ostream& out) {
    PrintTable(out, {"generation", "region", "on-demand", "spot", "1y commit", "3y commit"}, rows);
    out << "\nper chip-hour, list prices before discounts, credits and taxes; " << table.source << ", as of "
        << table.as_of << "\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupPricesCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<PricesOptions>();
  auto* prices = root.add_subcommand("prices", "TPU list prices per chip-hour, from the Cloud Billing Catalog API");
  prices->add_flag("--all-regions", options->all_regions,
                   "Every region, whatever the configuration's location (not with --location)");
  prices->add_option("--accelerator", options->accelerator, "Only this generation: v6e, v5e, v5p or v4")
      ->check(CLI::IsMember({"v6e", "v5e", "v5p", "v4"}));
  prices->footer(
      "Prices are read from the Cloud Billing Catalog API (Google credentials, or --billing-api-key) and kept\n"
      "for 3 days; when the API cannot be read, the built-in table is used and said to be used.\n"
      "Examples:\n"
      "  tputrain prices --location us-east5\n"
      "  tputrain prices --all-regions --refresh-prices --format json");
  prices->callback([options, &context] { context.outcome = RunPrices(*options, context); });
}

}  // namespace tputrain::cli
