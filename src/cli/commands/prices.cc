// tputrain prices: TPU list prices per chip-hour, from the Cloud Billing Catalog API.
#include "commands/commands.h"
#include "output/output.h"
#include "tputrain/workflow/price_list.h"
#include "tputrain/workflow/spend.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunPrices(workflow::PriceListRequest request, Context& context) {
  request.location_flag = context.global.location;
  auto list = workflow::ListTpuPrices(context.stack(), request);
  if (!list) return core::Fail(list.error());
  const auto& table = list->prices.table;
  // One row per generation and region, a column per way of buying.
  std::vector<std::vector<std::string>> rows;
  for (const auto& price : list->rows) {
    std::vector<std::string> row = {price.generation, price.region};
    for (auto kind : catalog::kPriceKinds) {
      auto it = price.per_chip_hour.find(kind);
      row.push_back(it == price.per_chip_hour.end() ? "-" : workflow::FormatMoney(it->second, table.currency));
    }
    rows.push_back(std::move(row));
  }
  PrintResult(context, workflow::ToJson(*list), [&](std::ostream& out) {
    PrintTable(out, {"generation", "region", "on-demand", "spot", "1y commit", "3y commit"}, rows);
    out << "\nper chip-hour, list prices before discounts, credits and taxes; " << table.source << ", as of "
        << table.as_of << "\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupPricesCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<workflow::PriceListRequest>();
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
