#include <exception>
#include <ostream>
#include <sstream>
#include <string_view>

#include <CLI/CLI.hpp>

#include "command_groups.h"
#include "commands/commands.h"
#include "global_flags.h"
#include "output/output.h"
#include "parse_error.h"
#include "suggestions.h"
#include "tputrain/cli/main.h"
#include "tputrain/core/text.h"
#include "tputrain/core/version.h"
#include "tputrain/core/wrap.h"

namespace tputrain::cli {
namespace {

// CLI11 ends a footer without a newline, which leaves the shell prompt on the example's line.
class Formatter final : public CLI::Formatter {
 public:
  std::string make_footer(const CLI::App* app) const override {
    std::string footer = CLI::Formatter::make_footer(app);
    return footer.empty() ? footer : footer + "\n";
  }
};

// Bad input is one line whatever the value held; other errors keep the lines they were given
// (a hint, a list of fields). Neither passes on a control character a value or a server sent.
// On a terminal the line wraps at spaces to its width; piped, it stays one line.
void ReportError(Context& context, const core::Error& error) {
  const auto newlines = core::IsUsageError(error) ? core::Newlines::kEscape : core::Newlines::kKeep;
  std::string line = "ERROR: ";
  if (!error.where.empty()) line += "(" + error.where + ") ";
  line += core::PrintableText(context.redactor(error.message), newlines);
  context.err << core::WrapToWidth(line, StderrWidth(context)) << "\n";
}

// --help on a terminal fits it: descriptions wrap under their own column.
int PrintHelp(CLI::App& app, const CLI::ParseError& help, Context& context) {
  std::ostringstream text;
  const int code = app.exit(help, text, context.err);
  context.out << core::WrapToWidth(text.str(), StdoutWidth(context));
  return code;
}

}  // namespace

void AddGlobalFlags(CLI::App& app, GlobalOptions& global) {
  app.add_option("--project", global.project,
                 "Google Cloud project ID (else TPUTRAIN_PROJECT, "
                 "CLOUDSDK_CORE_PROJECT, tputrain.yaml, gcloud config)");
  app.add_option("--location,--zone,--region", global.location,
                 "Zone or region of the resources (e.g. us-east5-b, us-central1)");
  app.add_option("--format", global.format,
                 "Output format: table, wide (a table with full resource names), json or yaml")
      ->check(CLI::IsMember({"table", "wide", "json", "yaml"}));
  app.add_option("--config", global.config_file, "tputrain.yaml to read (default: ./tputrain.yaml)")
      ->check(CLI::ExistingFile);
  app.add_option("--billing-project", global.billing_project,
                 "Project billed for API quota, sent as x-goog-user-project (else CLOUDSDK_BILLING_QUOTA_PROJECT, "
                 "gcloud's billing/quota_project)");
  app.add_option("--access-token-file", global.access_token_file,
                 "File holding an OAuth2 access token to use for Google Cloud calls")
      ->type_name("FILE");
  app.add_option("--billing-api-key", global.billing_api_key,
                 "API key for the Cloud Billing Catalog's prices (else TPUTRAIN_BILLING_API_KEY; without one, "
                 "Google credentials)")
      ->type_name("KEY");
  app.add_flag("--refresh-prices", global.refresh_prices,
               "Read TPU prices from the Cloud Billing Catalog API now, not from the cache of the last 3 days");
  app.add_flag("-q,--quiet", global.quiet, "No prompts, no progress; errors and results only");
  app.add_flag("--verbose", global.verbose, "Log each API call (method, URL, status, time) on stderr");
  app.add_flag("--log-http", global.log_http, "Also log request and response bodies (secrets redacted)");
  app.add_flag("--dry-run", global.dry_run,
               "Print the changes a command would send and send none (reads some commands need still go: "
               "--verbose shows them)");
}

bool MaySendRequests(int argc, const char* const* argv) {
  // The commands that never send one (the command tree's first words; phases_test runs two).
  static constexpr std::string_view kOffline[] = {"completion", "config", "emulator", "render"};
  bool command_seen = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;  // what follows is an entrypoint's
    if (word == "--help" || word == "-h" || word == "--version") return false;
    if (command_seen || word.starts_with("-")) continue;
    command_seen = true;  // the first word that is not a flag (a global flag's value is a guess)
    for (auto offline : kOffline) {
      if (word == offline) return false;
    }
  }
  return command_seen;
}

int Main(int argc, const char* const* argv, Context& context) {
  // The one question answered before the command tree is built: start-up is measured with it.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    context.out << "tputrain " << core::kVersion << "\n";
    return core::kExitOk;
  }
  core::Timeline::Span tree(context.timeline, "cli.tree");
  CLI::App app("tputrain: from nothing to a trained or served LLM on Cloud TPUs, and back.", "tputrain");
  app.set_version_flag("--version", std::string("tputrain ") + core::kVersion);
  app.formatter(std::make_shared<Formatter>());
  app.fallthrough();  // global flags are accepted after the command name, as gcloud accepts them
  app.footer(
      "Examples:\n"
      "  tputrain plan --model llama3-8b --accelerator v6e\n"
      "  tputrain render raycluster-maxtext --set KSA_NAME=ray-ksa ... | kubectl apply -f -\n"
      "  tputrain config show --format json\n"
      "  tputrain job submit --address http://127.0.0.1:8265 -- python -c \"print(42)\"\n"
      "\nExit codes: 0 ok, 1 operation failed, 2 usage or bad input, 4 no credentials, 130 interrupted.");
  AddGlobalFlags(app, context.global);

  // The command's own group alone when argv names one (most of the tree's cost is the other
  // commands'); the whole tree for --help, a typo's suggestions, completion and the rest.
  if (const CommandGroup* group = GroupOf(CommandWord(argc, argv))) {
    group->setup(app, context);
  } else {
    for (const auto& each : CommandGroups()) each.setup(app, context);
  }
  RefuseBadValues(app, {"command"});
  if (argc > 1 && (std::string_view(argv[1]) == "__complete" || std::string_view(argv[1]) == "__man")) {
    return RunHiddenCommand(app, argc, argv, context);
  }

  tree.End();
  try {
    core::Timeline::Span command(context.timeline, "command");
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return PrintHelp(app, e, context);  // --help, --version
    // A typo gets the nearest valid flags or commands; a bad value, tputrain's words for it.
    const std::string line = "ERROR: " + UnplacedWordLine(app, e).value_or(ParseErrorLine(e));
    context.err << core::WrapToWidth(line, StderrWidth(context)) << "\n";
    return core::kExitUsage;
  } catch (const std::exception& e) {
    context.err << "ERROR: internal: " << e.what() << "\n";
    return core::kExitFailed;
  }

  if (app.get_subcommands().empty()) {
    context.err << "ERROR: a command is required. Run 'tputrain --help' for the commands.\n";
    return core::kExitUsage;
  }
  if (!context.outcome) return core::kExitOk;
  if (context.outcome->has_value()) return context.outcome->value();
  ReportError(context, context.outcome->error());
  return core::ExitCodeFor(context.outcome->error());
}

}  // namespace tputrain::cli
