#include "command_groups.h"

#include <algorithm>
#include <array>

#include "commands/commands.h"

namespace tputrain::cli {
namespace {

constexpr std::array<CommandGroup, 26> kGroups = {{
    {"auth", SetupAuthCommand},
    {"bucket", SetupBucketCommand},
    {"cleanup", SetupCleanupCommand},
    {"cluster nodepool", SetupClusterCommands},
    {"config", SetupConfigCommand},
    {"emulator", SetupEmulatorCommand},
    {"iam", SetupIamCommand},
    {"job", SetupJobCommand},
    {"apply delete wait", SetupK8sCommands},
    {"logs", SetupLogsCommand},
    {"models", SetupModelsCommand},
    {"operators", SetupOperatorsCommand},
    {"plan", SetupPlanCommand},
    {"queue", SetupQueueCommand},
    {"prices", SetupPricesCommand},
    {"render", SetupRenderCommand},
    {"runs", SetupRunsCommand},
    {"submit", SetupSubmitCommand},
    {"up status", SetupUpCommand},
    {"down", SetupDownCommand},
    {"tpu-vm", SetupTpuVmCommand},
    {"completion version", SetupCompletionCommand},
    {"services", SetupServicesCommand},
    {"registry", SetupRegistryCommand},
    {"image", SetupImageCommand},
    {"serve", SetupServeCommand},
}};

// The global flags (AddGlobalFlags) that take a value, and those that take none.
constexpr std::string_view kValued[] = {
    "--project",         "--location",          "--zone",           "--region", "--format", "--config",
    "--billing-project", "--access-token-file", "--billing-api-key"};
constexpr std::string_view kBare[] = {"--refresh-prices", "-q", "--quiet", "--verbose", "--log-http", "--dry-run"};

bool Names(std::string_view names, std::string_view word) {
  while (!names.empty()) {
    const auto space = names.find(' ');
    if (names.substr(0, space) == word) return true;
    if (space == std::string_view::npos) break;
    names.remove_prefix(space + 1);
  }
  return false;
}

template <std::size_t N>
bool In(const std::string_view (&set)[N], std::string_view word) {
  return std::find(std::begin(set), std::end(set), word) != std::end(set);
}

}  // namespace

std::span<const CommandGroup> CommandGroups() { return kGroups; }

const CommandGroup* GroupOf(std::string_view word) {
  for (const auto& group : kGroups) {
    if (!word.empty() && Names(group.names, word)) return &group;
  }
  return nullptr;
}

std::string_view CommandWord(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (!word.starts_with("-")) return word;
    const std::string_view flag = word.substr(0, word.find('='));
    if (In(kValued, flag)) {
      if (flag == word) ++i;  // --project P: P is the flag's
      continue;
    }
    if (!In(kBare, word)) return "";  // --help, or a flag not known here
  }
  return "";
}

}  // namespace tputrain::cli
