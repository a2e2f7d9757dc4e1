// tputrain models: every model known by name, its size, and the slice it needs by default to
// train and to serve.
#include <fmt/format.h>

#include "commands/commands.h"
#include "output/output.h"
#include "tputrain/workflow/models.h"

namespace tputrain::cli {
namespace {

std::string Billions(double count) {
  return count >= 1e9 ? fmt::format("{:.4g}B", count / 1e9) : fmt::format("{:.3g}M", count / 1e6);
}

std::string FitCell(const std::optional<catalog::SlicePlan>& plan) {
  if (!plan) return "-";
  std::string cell = plan->slice.accelerator_type;
  if (plan->slices > 1) cell = fmt::format("{} × {}", plan->slices, cell);
  if (plan->dtype != "bf16") cell += " (" + plan->dtype + ")";
  return cell;
}

core::Result<int> RunModels(Context& context) {
  auto listings = workflow::ListModels();
  std::vector<std::vector<std::string>> rows;
  for (const auto& listing : listings) {
    const auto& model = listing.model;
    rows.push_back({model.name, Billions(model.parameters),
                    model.mixture_of_experts() ? Billions(model.active_parameters) : "", FitCell(listing.train),
                    FitCell(listing.serve)});
  }
  PrintResult(context, workflow::ToJson(listings), [&](std::ostream& out) {
    PrintTable(out, {"MODEL", "PARAMS", "ACTIVE", "TRAIN", "SERVE"}, rows);
    out << "\n"
        << listings.size() << " models: MaxText " << catalog::MaxTextVersion()
        << "'s configs, then tputrain's own presets. TRAIN and SERVE: the smallest slice each needs by default "
           "(tputrain plan --model NAME says why; --accelerator, --dtype change it).\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupModelsCommand(CLI::App& root, Context& context) {
  auto* models = root.add_subcommand("models", "List the models tputrain sizes and trains by name, and their slices");
  models->footer(
      "Examples:\n"
      "  tputrain models\n"
      "  tputrain models --format json | jq -r '.[] | select(.mixture_of_experts) | .name'\n"
      "Another model: tputrain plan --params 70b, or --hf-config CONFIG.json.");
  models->callback([&context] { context.outcome = RunModels(context); });
}

}  // namespace tputrain::cli
