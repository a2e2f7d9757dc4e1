#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/serving/engine.h"

// The options only some serving engines take, in one table for serve up's and serve down's flags
// and a stack's serve keys alike (each names them its own way: `--expose`, `expose`). Private to
// workflow.
namespace tputrain::workflow {

// The engine serve up runs: `engine` as typed (a usage error naming `flag` for another word),
// else the model's: a Saxml preset's name is Saxml's, any other JetStream's.
core::Result<serving::EngineKind> ServeEngineOf(std::string_view flag, const std::string& engine,
                                                const std::string& model);

struct EngineOption {
  std::string_view name;  // as a key: "expose"; the flag is "--" + name
  std::vector<serving::EngineKind> engines;
};

// serve up's (and a stack's serve section's).
const std::vector<EngineOption>& ServeUpEngineOptions();
// serve down's: vLLM's down deletes what the run's ledger recorded, with no values to render again.
const std::vector<EngineOption>& ServeDownEngineOptions();

// The first option of `options` that `given` says is there and `engine` does not take, with the
// engines that do take it ("jetstream or saxml").
struct EngineRefusal {
  std::string option;
  std::string takers;
};
std::optional<EngineRefusal> RefusedOption(serving::EngineKind engine, const std::vector<EngineOption>& options,
                                           const std::function<bool(std::string_view option)>& given);

}  // namespace tputrain::workflow
