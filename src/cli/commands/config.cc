#include <memory>

#include "commands/commands.h"
#include "output/output.h"
#include "tputrain/workflow/settings_shown.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunConfigShow(Context& context) {
  auto settings = workflow::ShowSettings(context.stack());
  if (!settings) return core::Fail(settings.error());
  std::vector<std::vector<std::string>> rows;
  for (const auto& setting : *settings) rows.push_back({setting.key, setting.value.value_or("-"), setting.source});
  PrintResult(context, workflow::ToJson(*settings), [&](std::ostream& out) {
    PrintTable(out, {"key", "value", "source"}, rows);
  });
  return core::kExitOk;
}

}  // namespace

void SetupConfigCommand(CLI::App& root, Context& context) {
  auto* config = root.add_subcommand("config", "Show the configuration tputrain resolves");
  config->require_subcommand(1);
  auto* show = config->add_subcommand("show", "Print every setting, its value and where it came from");
  show->footer(
      "Precedence: flags > environment (TPUTRAIN_*, CLOUDSDK_CORE_PROJECT, CLOUDSDK_COMPUTE_ZONE/REGION)\n"
      "> tputrain.yaml (current directory or --config) > gcloud's active configuration.\n\n"
      "Example:\n  tputrain config show --format json");
  show->callback([&context] { context.outcome = RunConfigShow(context); });
}

}  // namespace tputrain::cli
