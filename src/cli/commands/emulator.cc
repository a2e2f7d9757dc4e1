#include "commands/commands.h"
#include "companion_program.h"
#include "global_flags.h"
#include "output/output.h"
#include "parse_error.h"
#include "tputrain/workflow/emulator_state.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

constexpr char kEmulatorProgram[] = "tputrain-emulator";
constexpr int kDefaultEmulatorPort = 8780;  // tputrain-emulator's own default (--port)

struct EmulatorStateOptions {
  std::string url;
};

core::Result<int> RunEmulatorState(const EmulatorStateOptions& options, Context& context) {
  std::string url = options.url;
  if (url.empty()) {
    url = context.env.GetOr("TPUTRAIN_EMULATOR_URL", "http://127.0.0.1:" + std::to_string(kDefaultEmulatorPort));
  }
  auto state = workflow::FetchEmulatorState(context.stack().Downloads(), url);
  if (!state) return core::Fail(state.error());
  // The state is nested JSON; a table would hide it, so table output is JSON too.
  PrintResult(context, *state, [&](std::ostream& out) { out << state->dump(2) << "\n"; });
  return core::kExitOk;
}

// `emulator start ARGS`: the emulator is its own program, which owns its flags and its --help;
// tputrain keeps the global flags given among ARGS (--format, --project, ...) and execs
// `tputrain-emulator start` with the rest.
core::Result<int> StartEmulator(const std::vector<std::string>& given, Context& context) {
  CLI::App globals;
  globals.allow_extras();
  globals.set_help_flag();  // --help is the emulator's
  AddGlobalFlags(globals, context.global);
  RefuseBadValues(globals, {});
  std::vector<std::string> reversed(given.rbegin(), given.rend());  // CLI11 takes them last first
  try {
    globals.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return core::Fail(core::Error::Usage(ParseErrorLine(e)));
  }
  for (auto format : {OutputFormat::kJson, OutputFormat::kYaml}) {
    if (auto refused = RefuseFormat(context, format, "emulator start prints shell lines to eval, not a result");
        !refused) {
      return core::Fail(refused.error());
    }
  }
  auto program = FindCompanionProgram(kEmulatorProgram, context.factory().executable(), context.env);
  if (!program) {
    return core::Fail(core::Error::Make(core::ErrorKind::kNotFound,
                                        std::string(kEmulatorProgram) +
                                            ": not found beside tputrain or on PATH (it comes with tputrain: "
                                            "reinstall the package, or build the tputrain-emulator target)"));
  }
  std::vector<std::string> args = {"start"};
  const auto rest = globals.remaining();
  args.insert(args.end(), rest.begin(), rest.end());
  return context.factory().Exec(*program, args, context.env);
}

}  // namespace

void SetupEmulatorCommand(CLI::App& root, Context& context) {
  auto state_options = std::make_shared<EmulatorStateOptions>();
  auto* command = root.add_subcommand("emulator", "A local emulator of the Google Cloud APIs tputrain and gcloud use");
  command->require_subcommand(1);

  auto* start = command->add_subcommand(
      "start",
      "Serve the emulator in the foreground until Ctrl-C or SIGTERM (the tputrain-emulator program; --help lists its "
      "flags)");
  // Everything after `start` is handed over as typed, --help included.
  start->fallthrough(false);
  start->allow_extras();
  start->set_help_flag();
  start->footer(
      "Examples:\n"
      "  tputrain emulator start --port 8780 --op-latency 1s --state-file /tmp/emulator.json\n"
      "  tputrain emulator start --faults 'nodePools.create=stockout@first:1,*=503@every:10'\n"
      "  sudo tputrain emulator start --tpu-hosts netns --host-path /opt/ray-venv\n"
      "Its flags: tputrain emulator start --help");
  start->callback([start, &context] { context.outcome = StartEmulator(start->remaining(), context); });

  auto* state = command->add_subcommand("state", "Print every resource a running emulator holds (JSON)");
  state->add_option("--url", state_options->url,
                    "Emulator base URL (default: TPUTRAIN_EMULATOR_URL, else http://127.0.0.1:8780)");
  state->footer("Example:\n  tputrain emulator state --url http://127.0.0.1:8780");
  state->callback([state_options, &context] { context.outcome = RunEmulatorState(*state_options, context); });
}

}  // namespace tputrain::cli
