#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/gcp/billing/client.h"

// Which Catalog SKUs are TPU chips, and what one chip costs an hour under each way of buying it.
// Google does not document the SKU descriptions; the rules are those SkyPilot's catalog fetcher
// has kept working for years (../shared/notes/capacity-cost.md §B.1): a generation marker in the
// description ("TpuV6e", "TpuV5p", "TpuV5e", "Tpu-v4" with "Pod"), "Preemptible" in it for Spot
// (those SKUs' usageType is OnDemand), commitments by usageType, and no reserved, custom,
// premium or sole-tenancy SKU.
namespace tputrain::gcp::billing {

enum class TpuPriceKind { kOnDemand, kSpot, kCommit1Yr, kCommit3Yr };

struct TpuSkuPrice {
  std::string generation;  // "v6e", "v5e", "v5p", "v4": tputrain's family names
  std::string region;
  TpuPriceKind kind = TpuPriceKind::kOnDemand;
  double per_chip_hour = 0;
  std::string currency;
  std::string sku_id;
};

// The most a TPU chip-hour can be said to cost, in any currency the catalog quotes: list prices are
// a few dollars, so a SKU a thousand times dearer is a catalog's (or a proxy's) mistake, and a
// price beyond it is neither shown nor cached.
inline constexpr double kMaxChipHourPrice = 1000.0;

// One price per (generation, region, kind): the first SKU that gives it wins, in the order given.
// v5e, v5p and v6e SKUs are priced per chip-hour; v4's per 8 TensorCores, which is 4 chips. A SKU
// whose chip-hour would cost more than kMaxChipHourPrice gives none.
std::vector<TpuSkuPrice> TpuPricesFromSkus(const std::vector<Sku>& skus);

}  // namespace tputrain::gcp::billing
