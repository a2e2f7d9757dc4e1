#include "tputrain/workflow/slice_price.h"

#include "tputrain/core/gcp_location.h"

namespace tputrain::workflow {

std::optional<double> SlicePrice::PerChipHour(catalog::PriceKind kind) const {
  for (const auto& [known, price] : per_chip_hour) {
    if (known == kind) return price;
  }
  return std::nullopt;
}

std::optional<double> SlicePrice::PerHour(catalog::PriceKind kind) const {
  auto rate = PerChipHour(kind);
  if (!rate) return std::nullopt;
  return *rate * chips * slices;
}

SlicePrice PriceSlices(const catalog::PriceTable& table, const std::string& generation, int chips, int slices,
                       const std::string& location) {
  SlicePrice price{generation, core::RegionOf(location), table.currency, chips, slices, {}};
  for (auto kind : catalog::kPriceKinds) {
    if (auto rate = table.PerChipHour(generation, price.region, kind)) price.per_chip_hour.emplace_back(kind, *rate);
  }
  return price;
}

}  // namespace tputrain::workflow
