#include "tputrain/catalog/prices.h"

namespace tputrain::catalog {

std::string_view PriceKindKey(PriceKind kind) {
  switch (kind) {
    case PriceKind::kOnDemand:
      return "on_demand";
    case PriceKind::kSpot:
      return "spot";
    case PriceKind::kCommit1Yr:
      return "commit_1y";
    case PriceKind::kCommit3Yr:
      return "commit_3y";
  }
  return "on_demand";
}

std::string_view PriceKindWords(PriceKind kind) {
  switch (kind) {
    case PriceKind::kOnDemand:
      return "on-demand";
    case PriceKind::kSpot:
      return "Spot";
    case PriceKind::kCommit1Yr:
      return "1-year commitment";
    case PriceKind::kCommit3Yr:
      return "3-year commitment";
  }
  return "on-demand";
}

std::string_view CapacityModeName(CapacityMode mode) {
  switch (mode) {
    case CapacityMode::kOnDemand:
      return "on-demand";
    case CapacityMode::kSpot:
      return "spot";
    case CapacityMode::kReservation:
      return "reservation";
    case CapacityMode::kFlexStart:
      return "flex-start";
  }
  return "on-demand";
}

std::optional<CapacityMode> ParseCapacityMode(std::string_view name) {
  for (auto mode : kCapacityModes) {
    if (CapacityModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

PriceKind BilledAs(CapacityMode mode) { return mode == CapacityMode::kSpot ? PriceKind::kSpot : PriceKind::kOnDemand; }

bool PricedAsUpperBound(CapacityMode mode) { return mode == CapacityMode::kFlexStart; }

std::optional<double> PriceTable::PerChipHour(std::string_view generation, std::string_view region,
                                              PriceKind kind) const {
  for (const auto& price : prices) {
    if (price.generation == generation && price.region == region && price.kind == kind) return price.per_chip_hour;
  }
  return std::nullopt;
}

}  // namespace tputrain::catalog
