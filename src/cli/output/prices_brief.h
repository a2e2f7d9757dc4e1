#pragma once

#include <string>

#include "tputrain/workflow/prices.h"

namespace tputrain::cli {

// "prices: the Cloud Billing Catalog API, read 2026-11-26", "... the built-in table of ...": one
// short line saying where a table's prices come from (the full source is in --format json).
std::string PricesBrief(const workflow::Prices& prices);

}  // namespace tputrain::cli
