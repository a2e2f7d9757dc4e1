#pragma once

#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/cli/context.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/spend.h"

namespace tputrain::cli {

using workflow::FormatMoney;

// "prices: the Cloud Billing Catalog API, read 2026-11-26", "... the built-in table of ...": one
// short line saying where a table's prices come from (the full source is in --format json).
std::string PricesBrief(const workflow::Prices& prices);

// workflow::ReadTpuPrices once, when first asked (by parallel creates too): what provisioning records TPU
// costs with. A failure is a warning and no price, never a failed create.
class LazyPrices {
 public:
  explicit LazyPrices(Context& context) : context_(context) {}
  const workflow::Prices* Get();

 private:
  Context& context_;
  std::mutex mutex_;
  bool read_ = false;
  std::optional<workflow::Prices> prices_;
};

}  // namespace tputrain::cli
