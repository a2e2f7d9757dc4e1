#include "output/prices_brief.h"

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

}  // namespace tputrain::cli
