#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What a TPU chip costs an hour, by generation, region and the way the capacity is bought: list
// prices, before discounts, credits and taxes.
namespace tputrain::catalog {

// The ways of buying TPU capacity that have a price of their own.
enum class PriceKind { kOnDemand, kSpot, kCommit1Yr, kCommit3Yr };

inline constexpr PriceKind kPriceKinds[] = {PriceKind::kOnDemand, PriceKind::kSpot, PriceKind::kCommit1Yr,
                                            PriceKind::kCommit3Yr};

// "on_demand", "spot", "commit_1y", "commit_3y": the keys of --format json.
std::string_view PriceKindKey(PriceKind kind);
// "on-demand", "Spot", "1-year commitment", "3-year commitment": the words of a table.
std::string_view PriceKindWords(PriceKind kind);

// How a slice's capacity is had, as tputrain's create commands and plan name it.
enum class CapacityMode { kOnDemand, kSpot, kReservation };

inline constexpr CapacityMode kCapacityModes[] = {CapacityMode::kOnDemand, CapacityMode::kSpot,
                                                  CapacityMode::kReservation};

std::string_view CapacityModeName(CapacityMode mode);  // "on-demand", "spot", "reservation"
std::optional<CapacityMode> ParseCapacityMode(std::string_view name);
// The price a mode is billed at: a reservation's VMs bill at on-demand rates (a commitment, if
// one covers them, is a discount the catalog cannot see).
PriceKind BilledAs(CapacityMode mode);

struct ChipHourPrice {
  std::string generation;  // "v6e", "v5e", "v5p", "v4"
  std::string region;      // "us-east5"
  PriceKind kind = PriceKind::kOnDemand;
  double per_chip_hour = 0;
};

struct PriceTable {
  std::string currency = "USD";
  std::string source;  // where the numbers were read: an API's URL, or the built-in table's origin
  std::string as_of;   // RFC 3339: when they were read
  std::vector<ChipHourPrice> prices;

  // The price of one chip-hour; nothing when the table has none for that generation and region.
  std::optional<double> PerChipHour(std::string_view generation, std::string_view region, PriceKind kind) const;
};

// The table built into this release, for when the Cloud Billing Catalog API cannot be read:
// written by scripts/generate-price-table.py (src/catalog/builtin_prices.cc says from where, when).
const PriceTable& BuiltinPrices();

}  // namespace tputrain::catalog
