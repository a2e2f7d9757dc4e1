#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

// The emulator's Cloud Billing Catalog: TPU list prices per chip-hour, set at start with
// `--tpu-price GEN:REGION:KIND=USD` on top of tputrain's built-in table, served as SKUs of the
// Compute Engine and Cloud TPU services the way the real catalog is read.
namespace tputrain::emulator {

struct CatalogPrice {
  std::string generation;  // "v6e", "v5e", "v5p", "v4"
  std::string region;      // "us-east5"
  std::string kind;        // "on-demand", "spot", "commit-1y", "commit-3y"
  double usd_per_chip_hour = 0;
};

// "v6e:us-east5:spot=1.08"; a usage error naming --tpu-price otherwise.
core::Result<CatalogPrice> ParseCatalogPrice(std::string_view text);

// The default table with `overrides` laid over it (same generation, region and kind: replaced).
std::vector<CatalogPrice> CatalogPrices(const std::vector<CatalogPrice>& overrides);

}  // namespace tputrain::emulator
