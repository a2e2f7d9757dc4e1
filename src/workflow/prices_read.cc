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

}  // namespace tputrain::workflow
