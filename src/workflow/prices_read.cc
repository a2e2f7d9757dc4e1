#include <memory>
#include <mutex>
#include <optional>

#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<Prices> ReadTpuPrices(Root& root) {
  auto source = root.Prices();
  if (!source) return core::Fail(source.error());
  auto prices = ReadTpuPrices(*source, root.clock());
  if (!prices) return core::Fail(prices.error());
  if (!prices->notice.empty()) root.runtime().reporter.Warn(root.redactor()(prices->notice));
  return prices;
}

std::function<const Prices*()> TpuPricesOnFirstUse(Root& root) {
  struct Once {
    std::mutex mutex;
    bool read = false;
    std::optional<Prices> prices;
  };
  auto once = std::make_shared<Once>();
  return [&root, once]() -> const Prices* {
    std::lock_guard lock(once->mutex);
    if (!once->read) {
      once->read = true;
      auto prices = ReadTpuPrices(root);
      if (prices) {
        once->prices = std::move(*prices);
      } else {
        root.runtime().reporter.Warn(root.redactor()("prices: " + prices.error().message + "; no rate recorded"));
      }
    }
    return once->prices ? &*once->prices : nullptr;
  };
}

}  // namespace tputrain::workflow
