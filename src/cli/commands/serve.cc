// tputrain serve generate: ask a served model, through the API server's service proxy (no
// port-forward, no public IP), as seed 002's `kubectl port-forward` + `curl /generate` do.
#include <cmath>

#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"
#include "tputrain/k8s/names.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::cli {
namespace {

struct GenerateFlags {
  KubeAccessFlags access;
  std::string engine = "jetstream";
  std::string service;  // default: the engine's (jetstream-svc)
  std::string port;     // default: the engine's (8000)
  std::string prompt;
  std::string max_tokens = "200";
  bool stream = false;
  std::string timeout = "10m";
};

double Seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

double Rounded(double value) { return std::round(value * 1000.0) / 1000.0; }

core::Result<int> RunGenerate(const GenerateFlags& flags, Context& context) {
  auto kind = serving::ParseEngine("--engine", flags.engine);
  if (!kind) return core::Fail(kind.error());
  auto engine = serving::MakeEngine(*kind);
  const std::string service = flags.service.empty() ? engine->DefaultService() : flags.service;
  if (auto valid = k8s::CheckObjectName("--service", service); !valid) return core::Fail(valid.error());
  auto port = flags.port.empty() ? core::Result<int64_t>(engine->DefaultPort())
                                 : core::ParseWhole("--port", flags.port, 1, 65535);
  if (!port) return core::Fail(port.error());
  auto max_tokens = core::ParseWhole("--max-tokens", flags.max_tokens, 0, 1000000);
  if (!max_tokens) return core::Fail(max_tokens.error());
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  serving::GenerateRequest request{flags.prompt, static_cast<int>(*max_tokens), flags.stream};

  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  k8s::Client& client = *(*connection)->client;
  const std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  const std::string base_url = k8s::ServiceProxyUrl(client.server(), ns, service, std::to_string(*port));
  if (context.global.dry_run) {
    const http::Request planned = engine->BuildGenerate(base_url, request);
    nlohmann::json json = {
        {"dry_run", true},
        {"requests",
         {{{"method", planned.method}, {"url", planned.url}, {"body", nlohmann::json::parse(planned.body)}}}}};
    PrintResult(context, json, [&](std::ostream& out) {
      out << planned.method << " " << planned.url << "\n" << planned.body << "\n";
    });
    return core::kExitOk;
  }

  const bool json_output = context.global.output_format() != OutputFormat::kTable;
  workflow::ServeEndpoint endpoint{*(*connection)->transport, base_url, context.stack().clock(), *timeout};
  auto generated = workflow::Generate(endpoint, *engine, request, [&](std::string_view text) {
    // Text goes out as it comes; a JSON document waits for the end.
    if (!json_output) context.out << text << std::flush;
  });
  if (!generated) return core::Fail(generated.error());
  nlohmann::json json = {{"engine", serving::EngineName(*kind)},
                         {"service", service},
                         {"namespace", ns},
                         {"prompt", request.prompt},
                         {"max_tokens", request.max_tokens},
                         {"stream", request.stream},
                         {"text", generated->text},
                         {"total_s", Rounded(Seconds(generated->total))}};
  if (request.stream) json["pieces"] = generated->pieces;
  if (generated->time_to_first_token) {
    json["time_to_first_token_s"] = Rounded(Seconds(*generated->time_to_first_token));
  }
  if (generated->tokens_per_second) json["tokens_per_s"] = Rounded(*generated->tokens_per_second);
  PrintResult(context, json, [&](std::ostream& out) { out << "\n"; });
  return core::kExitOk;
}

}  // namespace

void SetupServeCommand(CLI::App& root, Context& context) {
  auto* serve = root.add_subcommand("serve", "Served models on the cluster (JetStream): ask them");
  serve->require_subcommand(1);

  auto generate_flags = std::make_shared<GenerateFlags>();
  auto* generate = serve->add_subcommand(
      "generate", "Ask the served model, through the API server's service proxy (no port-forward)");
  generate->add_option("--prompt", generate_flags->prompt, "The prompt")->required();
  generate->add_option("--max-tokens", generate_flags->max_tokens, "Tokens to generate at most (default 200)");
  generate->add_flag("--stream", generate_flags->stream, "Print the text as the server sends it, token by token");
  generate->add_option("--engine", generate_flags->engine, "The model server: jetstream (default)");
  generate->add_option("--service", generate_flags->service, "The Service in front of it (default: jetstream-svc)");
  generate->add_option("--port", generate_flags->port, "The Service's port (default: 8000)");
  generate->add_option("--timeout", generate_flags->timeout, "Give up on the answer after this long (default 10m)");
  AddKubeAccessFlags(*generate, generate_flags->access);
  generate->footer(
      "--format json adds the timings: total_s, and with --stream time_to_first_token_s and tokens_per_s.\n"
      "Example:\n"
      "  tputrain serve generate --cluster ray-tpu --location us-east5-b --prompt \"What are TPUs?\" --stream");
  generate->callback([generate_flags, &context] { context.outcome = RunGenerate(*generate_flags, context); });
}

}  // namespace tputrain::cli
