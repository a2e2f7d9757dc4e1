#include "commands/prices_common.h"

#include "tputrain/workflow/root.h"

namespace tputrain::cli {

core::Result<workflow::Prices> ReadPrices(Context& context) {
  auto source = context.stack().Prices();
  if (!source) return core::Fail(source.error());
  auto prices = workflow::ReadTpuPrices(*source, context.stack().clock());
  if (!prices) return core::Fail(prices.error());
  if (!prices->notice.empty()) context.reporter().Warn(context.redactor(prices->notice));
  return prices;
}

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
    auto prices = ReadPrices(context_);
    if (prices) {
      prices_ = std::move(*prices);
    } else {
      context_.reporter().Warn(context_.redactor("prices: " + prices.error().message + "; no rate recorded"));
    }
  }
  return prices_ ? &*prices_ : nullptr;
}

}  // namespace tputrain::cli
