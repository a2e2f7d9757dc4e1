#include "commands/plan_price.h"

#include <fmt/format.h>

#include "commands/prices_common.h"

namespace tputrain::cli {
namespace {

std::string Kind(catalog::PriceKind kind) { return std::string(catalog::PriceKindKey(kind)); }

}  // namespace

nlohmann::json PlanPriceJson(const std::optional<PlanPrice>& plan) {
  if (!plan) return nullptr;
  const auto& price = plan->price;
  nlohmann::json per_chip_hour = nlohmann::json::object();
  nlohmann::json per_hour = nlohmann::json::object();
  for (const auto& [kind, rate] : price.per_chip_hour) {
    per_chip_hour[Kind(kind)] = rate;
    per_hour[Kind(kind)] = *price.PerHour(kind);
  }
  const auto chosen = price.PerHour(catalog::BilledAs(plan->capacity));
  nlohmann::json estimate = nullptr;
  if (plan->hours && chosen) estimate = *chosen * *plan->hours;
  return {{"currency", price.currency},
          {"region", price.region},
          {"capacity", catalog::CapacityModeName(plan->capacity)},
          {"billed_as", Kind(catalog::BilledAs(plan->capacity))},
          {"upper_bound", catalog::PricedAsUpperBound(plan->capacity)},
          {"chips", price.chips * price.slices},
          {"per_chip_hour", per_chip_hour},
          {"per_hour", per_hour},
          {"hours", plan->hours ? nlohmann::json(*plan->hours) : nlohmann::json(nullptr)},
          {"estimate", estimate},
          {"gke_cluster_fee_per_hour", catalog::kGkeClusterFee.per_hour},
          {"source", plan->prices.table.source},
          {"as_of", plan->prices.table.as_of},
          {"origin", workflow::PriceOriginName(plan->prices.origin)}};
}

std::vector<std::vector<std::string>> PlanPriceRows(const std::optional<PlanPrice>& plan) {
  if (!plan) return {{"price", "give --location (a zone or region) to price the slices"}};
  const auto& price = plan->price;
  const auto& currency = price.currency;
  const auto billed = catalog::BilledAs(plan->capacity);
  const int chips = price.chips * price.slices;
  std::vector<std::vector<std::string>> rows;
  if (auto per_hour = price.PerHour(billed)) {
    rows.push_back({"price", fmt::format("{}/h {} ({} chips × {}/chip-hour, {})", FormatMoney(*per_hour, currency),
                                         catalog::CapacityModeName(plan->capacity), chips,
                                         FormatMoney(*price.PerChipHour(billed), currency), price.region)});
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
              FormatMoney(*price.PerHour(kind), currency) + "/h";
  }
  if (!others.empty()) rows.push_back({"", others});
  if (price.slices > 1 && price.PerHour(billed)) {
    rows.push_back({"", fmt::format("for {} slices of {} chips", price.slices, price.chips)});
  }
  if (plan->hours && price.PerHour(billed)) {
    rows.push_back({"estimate", fmt::format("{} for {} h", FormatMoney(*price.PerHour(billed) * *plan->hours, currency),
                                            *plan->hours)});
  }
  rows.push_back({"", fmt::format("on GKE, plus {}/h for the cluster (GKE's flat fee)",
                                  FormatMoney(catalog::kGkeClusterFee.per_hour, currency))});
  rows.push_back({"prices", fmt::format("{}, as of {}: list prices, before discounts and taxes",
                                        plan->prices.table.source, plan->prices.table.as_of.substr(0, 10))});
  return rows;
}

}  // namespace tputrain::cli
