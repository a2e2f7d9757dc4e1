// tputrain-emulator: the local emulator of the Google Cloud APIs tputrain and gcloud use, a program
// of its own so that tputrain links neither it nor cpp-httplib. `tputrain emulator start ARGS`
// execs `tputrain-emulator start ARGS`; its flags, help and errors read as tputrain's do.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/error.h"
#include "tputrain/core/nearest.h"
#include "tputrain/core/wrap.h"
#include "tputrain/emulator_server/server.h"

namespace {

using tputrain::emulator::StartOptions;

// CLI11 ends a footer without a newline, which leaves the shell prompt on the example's line.
class Formatter final : public CLI::Formatter {
 public:
  std::string make_footer(const CLI::App* app) const override {
    std::string footer = CLI::Formatter::make_footer(app);
    return footer.empty() ? footer : footer + "\n";
  }
};

// A flag `start` does not take, with the nearest it does: "--prot: no such flag for 'tputrain
// emulator start'; did you mean --port?".
std::optional<std::string> UnknownFlagLine(const CLI::App& app, const CLI::App& start, const CLI::ParseError& error) {
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) return std::nullopt;
  std::vector<std::string> flags;
  for (const CLI::Option* option : start.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    for (const auto& name : option->get_lnames()) flags.push_back("--" + name);
  }
  for (const auto& word : app.remaining(true)) {
    if (word.size() < 2 || word[0] != '-') continue;
    const std::string flag = word.substr(0, word.find('='));
    const auto nearest = tputrain::core::Nearest(flag, flags);
    std::string line = flag + ": no such flag for 'tputrain emulator start'";
    if (nearest.empty()) return line + " (see tputrain emulator start --help)";
    line += "; did you mean ";
    for (std::size_t i = 0; i < nearest.size(); ++i) line += (i ? " or " : "") + nearest[i];
    return line + "?";
  }
  return std::nullopt;
}

// CLI11's words for a bad flag, in tputrain's form: "--port: expected a number, got 'abc'".
std::string ParseErrorLine(const CLI::ParseError& error) {
  static const std::regex kConvert(R"(^Could not convert: (\S+) = (.*)$)");
  static const std::regex kMissing(R"(^(\S+): \d+ required \S+ missing$)");
  const std::string message = error.what();
  if (std::regex_match(message, kConvert))
    return std::regex_replace(message, kConvert, "$1: expected a number, got '$2'");
  if (std::regex_match(message, kMissing)) return std::regex_replace(message, kMissing, "$1: expected a value");
  return message;
}

// The width --help fits on a terminal (COLUMNS first, as tputrain reads it); 0 when piped.
std::size_t StdoutWidth() {
  if (isatty(STDOUT_FILENO) != 1) return 0;
  winsize size{};
  std::size_t width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0 && value < 100000) width = static_cast<std::size_t>(value);
  }
  return width;
}

void AddStartFlags(CLI::App& start, StartOptions& options) {
  start.add_option("--port", options.port, "TCP port (0: any free port)")->capture_default_str();
  start.add_option("--host", options.host, "Address to listen on")->capture_default_str();
  start
      .add_option("--op-latency", options.op_latency,
                  "How long operations run before they are done (e.g. 250ms, 2s); then METHOD=DURATION for one kind of "
                  "call (2s,clusters.create=20s,nodePools.create=15s,builds.create=20s)")
      ->capture_default_str();
  start.add_option("--stuck-for", options.stuck_for,
                   "How long operations a `stuck` fault hits run (e.g. 20s; default: for ever)");
  start
      .add_option("--state-file", options.state_file,
                  "Keep every resource in this JSON file, rewritten atomically, so a restart keeps them")
      ->type_name("FILE");
  start.add_option("--faults", options.faults,
                   "Fault rules TARGET=ACTION[@WHEN],...: ACTION is a status (RESOURCE_EXHAUSTED), an HTTP code "
                   "(503), stockout, stuck, drop or lose-reply; WHEN is nth:N, first:N, every:N or p:P");
  start
      .add_option("--disabled-apis", options.disabled_apis,
                  "APIs that answer SERVICE_DISABLED until enabled (container.googleapis.com, tpu, ...)")
      ->delimiter(',');
  start.add_option("--random-state", options.seed, "Starting state of the random (@p:P) faults' generator")
      ->capture_default_str();
  start.add_option("--seed", options.seed)->group("");  // the flag's older name, kept for scripts
  start.add_option("--cluster-endpoint", options.cluster_endpoint,
                   "Endpoint (URL or host:port) that created GKE clusters report");
  start.add_option("--cluster-ca-file", options.cluster_ca_file, "PEM CA certificate that created GKE clusters report")
      ->type_name("FILE");
  start
      .add_option("--tpu-hosts", options.tpu_hosts,
                  "paper: TPU VM hosts exist only in the API; netns (root): each host of a READY node boots as a "
                  "network namespace with a metadata server and runs the node's startup-script")
      ->capture_default_str();
  start
      .add_option("--host-path", options.host_path,
                  "With --tpu-hosts netns: a directory (e.g. a Ray venv) whose bin/ leads the hosts' PATH")
      ->type_name("DIR");
  start.add_option("--capacity", options.capacity,
                   "TPU chips each zone has, ZONE/GENERATION[/on-demand|spot]=CHIPS,... (e.g. us-east5-a/v6e=16); "
                   "creates past them stock out, queued resources wait (default: no limit)");
  start.add_option("--quota", options.quota,
                   "Regional TPU quota of the TPU API and of GKE each, REGION/GENERATION[/on-demand|spot]=CHIPS,... "
                   "(e.g. us-east5/v6e/spot=0)");
  start.add_option("--stockout-retry", options.stockout_retry,
                   "How long GKE retries a node pool a stockout left in ERROR, the cluster busy meanwhile (e.g. "
                   "30s; default: not at all)");
  start.add_option("--tpu-price", options.tpu_prices,
                   "A Billing Catalog price, USD per chip-hour, over the defaults: GEN:REGION:KIND=USD, KIND "
                   "on-demand, spot, commit-1y or commit-3y (e.g. v6e:us-east5:spot=1.08); repeatable");
  start.footer(
      "Examples:\n"
      "  tputrain emulator start --port 8780 --op-latency 1s --state-file /tmp/emulator.json\n"
      "  tputrain emulator start --faults 'nodePools.create=stockout@first:1,*=503@every:10'\n"
      "  tputrain emulator start --capacity us-east5-a/v6e=16,us-east5-b/v6e=64 --quota us-east5/v6e/spot=0\n"
      "  sudo tputrain emulator start --tpu-hosts netns --host-path /opt/ray-venv");
  // An unset shell variable is a mistake, not a value: every flag here takes a non-empty one.
  static const CLI::Validator kNotEmpty(
      [](std::string& value) { return value.empty() ? std::string("expected a value, got ''") : std::string(); }, "",
      "NOT_EMPTY");
  for (CLI::Option* option : start.get_options()) {
    if (option->get_type_size() != 0) option->check(kNotEmpty);
  }
}

}  // namespace

int main(int argc, char** argv) {
  tputrain::core::CancelToken cancel;
  tputrain::core::InstallInterruptHandler(cancel);
  CLI::App app("A local emulator of the Google Cloud APIs tputrain and gcloud use", "tputrain emulator");
  app.formatter(std::make_shared<Formatter>());
  app.require_subcommand(1);
  StartOptions options;
  auto* start = app.add_subcommand("start", "Serve the emulator in the foreground until Ctrl-C or SIGTERM");
  AddStartFlags(*start, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help: on a terminal, fitted to it
      std::ostringstream help;
      const int code = app.exit(e, help, std::cerr);
      std::cout << tputrain::core::WrapToWidth(help.str(), StdoutWidth());
      return code;
    }
    std::cerr << "ERROR: " << UnknownFlagLine(app, *start, e).value_or(ParseErrorLine(e)) << "\n";
    return tputrain::core::kExitUsage;
  }
  auto served = tputrain::emulator::RunEmulator(options, cancel, std::cout, std::cerr);
  if (served) return *served;
  std::cerr << "ERROR: " << served.error().message << "\n";
  return tputrain::core::ExitCodeFor(served.error());
}
