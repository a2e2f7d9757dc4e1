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

// How a slice's capacity is had: exactly one of on-demand, Spot, a reservation or flex-start
// (GKE's Dynamic Workload Scheduler), as the create commands' --capacity and plan name it.
enum class CapacityMode { kOnDemand, kSpot, kReservation, kFlexStart };

inline constexpr CapacityMode kCapacityModes[] = {CapacityMode::kOnDemand, CapacityMode::kSpot,
                                                  CapacityMode::kReservation, CapacityMode::kFlexStart};

// "on-demand", "spot", "reservation", "flex-start": the --capacity values.
std::string_view CapacityModeName(CapacityMode mode);
std::optional<CapacityMode> ParseCapacityMode(std::string_view name);
// The price a mode is billed at: a reservation's VMs bill at on-demand rates (a commitment, if
// one covers them, is a discount the catalog cannot see); flex-start is priced at on-demand too,
// as an upper bound (see PricedAsUpperBound).
PriceKind BilledAs(CapacityMode mode);
// True for flex-start: Google bills it below on-demand ("up to 53%") but publishes no TPU SKU for
// it, so the on-demand price tputrain shows is the most it can cost, and says so.
bool PricedAsUpperBound(CapacityMode mode);

// GKE's cluster management fee: a flat rate per cluster-hour whatever the cluster's size (the
// Standard edition's, on cloud.google.com/kubernetes-engine/pricing, read 2026-11-26). One zonal
// cluster per billing account is free of it, which a run cannot see.
struct ClusterFee {
  double per_hour;
  std::string_view currency;
  std::string_view source;
};
inline constexpr ClusterFee kGkeClusterFee{0.10, "USD", "GKE pricing page (Standard edition, read 2026-11-26)"};

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
