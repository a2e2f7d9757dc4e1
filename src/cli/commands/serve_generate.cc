// tputrain serve generate: ask a served model, through the API server's service proxy (no
// port-forward, no public IP), as seed 002's `kubectl port-forward` + `curl /generate` do.
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/serve_flags.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/json.h"
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
  std::string model;    // Saxml: the model id or preset (default: the preset's /sax/test/spmd)
  std::string prompt;
  std::string max_tokens;  // default 200 where the engine takes it
  bool stream = false;
  std::string timeout = "10m";
};

core::Result<int> RunGenerate(const GenerateFlags& flags, Context& context) {
  auto kind = serving::ParseEngine("--engine", flags.engine);
  if (!kind) return core::Fail(kind.error());
  auto engine = serving::MakeEngine(*kind);
  const std::string service = flags.service.empty() ? engine->DefaultService() : flags.service;
  if (auto valid = k8s::CheckObjectName("--service", service); !valid) return core::Fail(valid.error());
  auto port = flags.port.empty() ? core::Result<int64_t>(engine->DefaultPort())
                                 : core::ParseWhole("--port", flags.port, 1, 65535);
  if (!port) return core::Fail(port.error());
  if (flags.stream && !engine->CanStream()) {
    return core::Fail(core::Error::Usage("--stream: " + std::string(serving::EngineName(*kind)) +
                                         " answers whole; leave --stream out"));
  }
  if (!flags.max_tokens.empty() && !engine->TakesMaxTokens()) {
    return core::Fail(core::Error::Usage("--max-tokens: " + std::string(serving::EngineName(*kind)) +
                                         " decodes as many steps as the model's own configuration says"));
  }
  auto max_tokens =
      engine->TakesMaxTokens()
          ? core::ParseWhole("--max-tokens", flags.max_tokens.empty() ? "200" : flags.max_tokens, 0, 1000000)
          : core::Result<int64_t>(0);
  if (!max_tokens) return core::Fail(max_tokens.error());
  std::string model;
  if (*kind == serving::EngineKind::kSaxml) {
    auto id = SaxModelIdOf("--model", flags.model);
    if (!id) return core::Fail(id.error());
    model = *id;
  } else if (!flags.model.empty()) {
    return core::Fail(core::Error::Usage("--model: only for --engine saxml (jetstream-http serves one model)"));
  }
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  serving::GenerateRequest request{flags.prompt, static_cast<int>(*max_tokens), flags.stream, model};

  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  k8s::Client& client = *(*connection)->client;
  const std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  const std::string base_url = k8s::ServiceProxyUrl(client.server(), ns, service, std::to_string(*port));
  if (context.global.dry_run) {
    const http::Request planned = engine->BuildGenerate(base_url, request);
    nlohmann::json json = {{"dry_run", true},
                           {"requests",
                            {{{"method", planned.method},
                              {"url", planned.url},
                              {"body", core::ParseJson(planned.body, "").value_or(planned.body)}}}}};
    PrintResult(context, json, [&](std::ostream& out) {
      out << planned.method << " " << planned.url << "\n" << planned.body << "\n";
    });
    return core::kExitOk;
  }

  const bool json_output = context.global.output_format() != OutputFormat::kTable;
  workflow::ServeEndpoint endpoint{*(*connection)->transport, base_url, context.stack().clock(), *timeout};
  // Text goes out as it comes; a JSON document takes it whole at the end.
  std::function<void(std::string_view)> print_text;
  if (!json_output) print_text = [&](std::string_view text) { context.out << text << std::flush; };
  auto generated = workflow::Generate(endpoint, *engine, request, print_text);
  if (!generated) return core::Fail(generated.error());
  nlohmann::json json = {{"engine", serving::EngineName(*kind)},
                         {"service", service},
                         {"namespace", ns},
                         {"prompt", request.prompt},
                         {"stream", request.stream},
                         {"text", generated->text},
                         {"total_s", Rounded(Seconds(generated->total))}};
  if (engine->TakesMaxTokens()) json["max_tokens"] = request.max_tokens;
  if (!request.model.empty()) json["model"] = request.model;
  if (request.stream) json["pieces"] = generated->pieces;
  if (generated->time_to_first_token) {
    json["time_to_first_token_s"] = Rounded(Seconds(*generated->time_to_first_token));
  }
  if (generated->tokens_per_second) json["tokens_per_s"] = Rounded(*generated->tokens_per_second);
  PrintResult(context, json, [&](std::ostream& out) { out << "\n"; });
  return core::kExitOk;
}

}  // namespace

void AddServeGenerateCommand(CLI::App& serve, Context& context) {
  auto generate_flags = std::make_shared<GenerateFlags>();
  auto* generate = serve.add_subcommand(
      "generate", "Ask the served model, through the API server's service proxy (no port-forward)");
  generate->add_option("--prompt,--query", generate_flags->prompt, "The prompt (Saxml's query)")->required();
  generate->add_option("--max-tokens", generate_flags->max_tokens,
                       "Tokens to generate at most (default 200; JetStream)");
  generate->add_option("--model", generate_flags->model, "Saxml: the model id, or a preset (default /sax/test/spmd)");
  generate->add_flag("--stream", generate_flags->stream, "Print the text as the server sends it, token by token");
  generate->add_option("--engine", generate_flags->engine, "The model server: jetstream (default) or saxml");
  generate->add_option("--service", generate_flags->service,
                       "The Service in front of it (default: jetstream-svc, sax-http-lb)");
  generate->add_option("--port", generate_flags->port, "The Service's port (default: 8000, 8888)");
  generate->add_option("--timeout", generate_flags->timeout, "Give up on the answer after this long (default 10m)");
  AddKubeAccessFlags(*generate, generate_flags->access);
  generate->footer(
      "--format json adds the timings: total_s, and with --stream time_to_first_token_s and tokens_per_s.\n"
      "Example:\n"
      "  tputrain serve generate --cluster ray-tpu --location us-east5-b --prompt \"What are TPUs?\" --stream\n"
      "  tputrain serve generate --engine saxml --cluster saxml-tpu --location us-east1 --query \"Q: ... A:\"");
  generate->callback([generate_flags, &context] { context.outcome = RunGenerate(*generate_flags, context); });
}

}  // namespace tputrain::cli
