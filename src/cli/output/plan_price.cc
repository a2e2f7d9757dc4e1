#include "output/plan_price.h"

#include <fmt/format.h>

#include "tputrain/workflow/spend.h"

namespace tputrain::cli {

std::vector<std::vector<std::string>> PlanPriceRows(const std::optional<workflow::PlanPrice>& plan) {
  if (!plan) return {{"price", "give --location (a zone or region) to price the slices"}};
  const auto& price = plan->price;
  const auto& currency = price.currency;
  const auto billed = catalog::BilledAs(plan->capacity);
  const int chips = price.chips * price.slices;
  std::vector<std::vector<std::string>> rows;
  if (auto per_hour = price.PerHour(billed)) {
    rows.push_back(
        {"price", fmt::format("{}/h {} ({} chips × {}/chip-hour, {})", workflow::FormatMoney(*per_hour, currency),
                              catalog::CapacityModeName(plan->capacity), chips,
                              workflow::FormatMoney(*price.PerChipHour(billed), currency), price.region)});
  } else {
    rows.push_back({"price", fmt::format("no {} list price for {} in {}", catalog::PriceKindWords(billed),
                                         price.generation, price.region)});
  }
  if (catalog::PricedAsUpperBound(plan->capacity)) {
    rows.push_back({"", "flex-start bills below on-demand; no TPU price is published for it: an upper bound"});
  }
  std::string others;
  for (const auto& [kind, rate] : price.per_chip_hour) {
    if (kind == billed) continue;
    others += (others.empty() ? "" : " · ") + std::string(catalog::PriceKindWords(kind)) + " " +
              workflow::FormatMoney(*price.PerHour(kind), currency) + "/h";
  }
  if (!others.empty()) rows.push_back({"", others});
  if (price.slices > 1 && price.PerHour(billed)) {
    rows.push_back({"", fmt::format("for {} slices of {} chips", price.slices, price.chips)});
  }
  if (plan->hours && price.PerHour(billed)) {
    rows.push_back(
        {"estimate", fmt::format("{} for {} h", workflow::FormatMoney(*price.PerHour(billed) * *plan->hours, currency),
                                 *plan->hours)});
  }
  rows.push_back({"", fmt::format("on GKE, plus {}/h for the cluster (GKE's flat fee)",
                                  workflow::FormatMoney(catalog::kGkeClusterFee.per_hour, currency))});
  rows.push_back({"prices", fmt::format("{}, as of {}: list prices, before discounts and taxes",
                                        plan->prices.table.source, plan->prices.table.as_of.substr(0, 10))});
  return rows;
}

}  // namespace tputrain::cli
