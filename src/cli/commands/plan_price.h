#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/slice_price.h"

namespace tputrain::cli {

// What plan says about money: the slices' price each way of buying them, the chosen one first.
struct PlanPrice {
  workflow::SlicePrice price;
  workflow::Prices prices;  // the table and where it came from
  catalog::CapacityMode capacity = catalog::CapacityMode::kOnDemand;
  std::optional<double> hours;
};

// `price` of plan --format json; null when there is no location to price in.
nlohmann::json PlanPriceJson(const std::optional<PlanPrice>& price);
// The table's rows: price, the other ways on the line below, total and estimate, the source.
std::vector<std::vector<std::string>> PlanPriceRows(const std::optional<PlanPrice>& price);

}  // namespace tputrain::cli
