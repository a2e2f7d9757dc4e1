#include "commands/prices_common.h"

#include "tputrain/workflow/root.h"

namespace tputrain::cli {

std::string PricesBrief(const workflow::Prices& prices) {
  const std::string date = prices.table.as_of.substr(0, 10);
  switch (prices.origin) {
    case workflow::PriceOrigin::kCatalogApi:
      return "prices: the Cloud Billing Catalog API, read " + date;
    case workflow::PriceOrigin::kCache:
      return "prices: the Cloud Billing Catalog API, read " + date + " (cached)";
    case workflow::PriceOrigin::kBuiltin:
      return "prices: the built-in table of " + date + " (see tputrain prices)";
  }
  return "";
}

const workflow::Prices* LazyPrices::Get() {
  std::lock_guard lock(mutex_);
  if (!read_) {
    read_ = true;
    auto prices = workflow::ReadTpuPrices(context_.stack());
    if (prices) {
      prices_ = std::move(*prices);
    } else {
      context_.reporter().Warn(context_.redactor("prices: " + prices.error().message + "; no rate recorded"));
    }
  }
  return prices_ ? &*prices_ : nullptr;
}

}  // namespace tputrain::cli
