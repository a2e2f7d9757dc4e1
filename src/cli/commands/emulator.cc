#include "commands/commands.h"
#include "stack.h"
#include "tputrain/cli/output.h"
#include "tputrain/emulator/server.h"

namespace tputrain::cli {
namespace {

struct EmulatorStateOptions {
  std::string url;
};

core::Result<int> RunEmulatorState(const EmulatorStateOptions& options, Context& context) {
  std::string url = options.url;
  if (url.empty()) {
    url = context.env.GetOr("TPUTRAIN_EMULATOR_URL", "http://127.0.0.1:" + std::to_string(emulator::kDefaultPort));
  }
  auto state = emulator::FetchState(context.stack().Downloads(), url);
  if (!state) return core::Fail(state.error());
  // The state is nested JSON; a table would hide it, so table output is JSON too.
  PrintResult(context, *state, [&](std::ostream& out) { out << state->dump(2) << "\n"; });
  return core::kExitOk;
}

}  // namespace

void SetupEmulatorCommand(CLI::App& root, Context& context) {
  auto start_options = std::make_shared<emulator::StartOptions>();
  auto state_options = std::make_shared<EmulatorStateOptions>();
  auto* command = root.add_subcommand("emulator", "A local emulator of the Google Cloud APIs tputrain and gcloud use");
  command->require_subcommand(1);

  auto* start = command->add_subcommand("start", "Serve the emulator in the foreground until Ctrl-C or SIGTERM");
  start->add_option("--port", start_options->port, "TCP port (0: any free port)")->capture_default_str();
  start->add_option("--host", start_options->host, "Address to listen on")->capture_default_str();
  start
      ->add_option("--op-latency", start_options->op_latency,
                   "How long operations run before they are done (e.g. 250ms, 2s)")
      ->capture_default_str();
  start->add_option("--stuck-for", start_options->stuck_for,
                    "How long operations a `stuck` fault hits run (e.g. 20s; default: for ever)");
  start
      ->add_option("--state-file", start_options->state_file,
                   "Keep every resource in this JSON file, rewritten atomically, so a restart keeps them")
      ->type_name("FILE");
  start->add_option("--faults", start_options->faults,
                    "Fault rules TARGET=ACTION[@WHEN],...: ACTION is a status (RESOURCE_EXHAUSTED), an HTTP code "
                    "(503), stockout, stuck, drop or lose-reply; WHEN is nth:N, first:N, every:N or p:P");
  start
      ->add_option("--disabled-apis", start_options->disabled_apis,
                   "APIs that answer SERVICE_DISABLED until enabled (container.googleapis.com, tpu, ...)")
      ->delimiter(',');
  start->add_option("--seed", start_options->seed, "Seed for random (@p:P) faults")->capture_default_str();
  start->add_option("--cluster-endpoint", start_options->cluster_endpoint,
                    "Endpoint (URL or host:port) that created GKE clusters report");
  start
      ->add_option("--cluster-ca-file", start_options->cluster_ca_file,
                   "PEM CA certificate that created GKE clusters report")
      ->type_name("FILE");
  start
      ->add_option("--tpu-hosts", start_options->tpu_hosts,
                   "paper: TPU VM hosts exist only in the API; netns (root): each host of a READY node boots as a "
                   "network namespace with a metadata server and runs the node's startup-script")
      ->capture_default_str();
  start
      ->add_option("--host-path", start_options->host_path,
                   "With --tpu-hosts netns: a directory (e.g. a Ray venv) whose bin/ leads the hosts' PATH")
      ->type_name("DIR");
  start->footer(
      "Examples:\n"
      "  tputrain emulator start --port 8780 --op-latency 1s --state-file /tmp/emulator.json\n"
      "  tputrain emulator start --faults 'nodePools.create=stockout@first:1,*=503@every:10'\n"
      "  sudo tputrain emulator start --tpu-hosts netns --host-path /opt/ray-venv");
  start->callback([start_options, &context] {
    for (auto format : {OutputFormat::kJson, OutputFormat::kYaml}) {
      if (auto refused = RefuseFormat(context, format, "emulator start prints shell lines to eval, not a result");
          !refused) {
        context.outcome = core::Fail(refused.error());
        return;
      }
    }
    core::CancelToken never;
    context.outcome =
        emulator::RunEmulator(*start_options, context.cancel ? *context.cancel : never, context.out, context.err);
  });

  auto* state = command->add_subcommand("state", "Print every resource a running emulator holds (JSON)");
  state->add_option("--url", state_options->url,
                    "Emulator base URL (default: TPUTRAIN_EMULATOR_URL, else http://127.0.0.1:8780)");
  state->footer("Example:\n  tputrain emulator state --url http://127.0.0.1:8780");
  state->callback([state_options, &context] { context.outcome = RunEmulatorState(*state_options, context); });
}

}  // namespace tputrain::cli
