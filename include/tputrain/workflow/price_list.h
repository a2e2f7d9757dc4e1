#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/prices.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/prices.h"

// `tputrain prices`: the TPU list prices of one region (or every one) and generation (or all),
// one row per generation and region.
namespace tputrain::workflow {

class Root;

struct PriceListRequest {
  bool all_regions = false;
  std::string location_flag;  // --location as typed: a region asked for as well, refused with all_regions
  std::string accelerator;    // empty: every generation
};

// One generation in one region: its price per chip-hour each way it is sold.
struct PriceListRow {
  std::string generation;
  std::string region;
  std::map<catalog::PriceKind, double> per_chip_hour;
};

struct PriceList {
  Prices prices;
  std::vector<PriceListRow> rows;  // by generation, then region
};

// The request checked (the configured location too: a malformed one is a usage error), then
// ReadTpuPrices(root), grouped.
core::Result<PriceList> ListTpuPrices(Root& root, const PriceListRequest& request);

// `prices --format json`: currency, source, as_of, origin, and the rows, keyed by PriceKindKey.
nlohmann::json ToJson(const PriceList& list);

}  // namespace tputrain::workflow
