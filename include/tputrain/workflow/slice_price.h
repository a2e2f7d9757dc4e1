#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tputrain/catalog/prices.h"

namespace tputrain::workflow {

// What some slices of one generation cost an hour in a region, each way of buying them.
struct SlicePrice {
  std::string generation;
  std::string region;
  std::string currency;
  int chips = 0;  // per slice
  int slices = 1;
  std::vector<std::pair<catalog::PriceKind, double>> per_chip_hour;  // the kinds the table has, in kPriceKinds order

  std::optional<double> PerChipHour(catalog::PriceKind kind) const;
  // chips × slices × the chip-hour price.
  std::optional<double> PerHour(catalog::PriceKind kind) const;
};

// `location` is a zone or a region: prices are regional.
SlicePrice PriceSlices(const catalog::PriceTable& table, const std::string& generation, int chips, int slices,
                       const std::string& location);

}  // namespace tputrain::workflow
