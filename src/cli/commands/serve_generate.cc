// tputrain serve generate: ask a served model, through the API server's service proxy (no
// port-forward, no public IP), as seed 002's `kubectl port-forward` + `curl /generate` do.
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/serve_ask.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunGenerate(const workflow::ServeAskRequest& flags, Context& context) {
  auto plan = workflow::PlanServeAsk(flags);
  if (!plan) return core::Fail(plan.error());
  const bool json_output = context.global.output_format() != OutputFormat::kTable;
  // Text goes out as it comes; a JSON document takes it whole at the end. A model's text is shown,
  // never obeyed: its escape sequences and bidi controls are printed as escapes.
  std::function<void(std::string_view)> print_text;
  if (!json_output) {
    print_text = [&](std::string_view text) {
      context.out << core::PrintableText(text, core::Newlines::kKeep) << std::flush;
    };
  }
  auto asked = workflow::ServeAsk(context.stack(), *plan, context.global.dry_run, print_text);
  if (!asked) return core::Fail(asked.error());
  PrintResult(context, workflow::ToJson(*plan, *asked, context.global.dry_run), [&](std::ostream& out) {
    if (!context.global.dry_run) {
      out << "\n";
      return;
    }
    for (const auto& call : asked->planned)
      out << call.method << " " << call.url << "\n" << call.body << (call.body.empty() ? "" : "\n");
  });
  return core::kExitOk;
}

}  // namespace

void AddServeGenerateCommand(CLI::App& serve, Context& context) {
  auto generate_flags = std::make_shared<workflow::ServeAskRequest>();
  auto* generate = serve.add_subcommand(
      "generate", "Ask the served model, through the API server's service proxy (no port-forward)");
  generate->add_option("--prompt,--query", generate_flags->prompt, "The prompt (Saxml's query)");
  generate->add_option("--message", generate_flags->messages,
                       "vLLM: a chat message ROLE:TEXT (system, developer, user, assistant); repeatable, in order");
  generate->add_flag("--chat", generate_flags->chat, "vLLM: send --prompt as a user message to /v1/chat/completions");
  generate->add_option("--max-tokens", generate_flags->max_tokens,
                       "Tokens to generate at most (default 200; JetStream, vLLM)");
  generate->add_option("--temperature", generate_flags->temperature, "vLLM: sampling temperature, 0 to 2");
  generate->add_option("--model", generate_flags->model,
                       "Saxml: the model id, or a preset (default /sax/test/spmd); vLLM: the served model "
                       "(default: the one /v1/models lists)");
  generate->add_flag("--stream", generate_flags->stream, "Print the text as the server sends it, token by token");
  generate->add_option("--engine", generate_flags->engine, "The model server: jetstream (default), saxml or vllm");
  generate->add_option("--service", generate_flags->service,
                       "The Service in front of it (default: jetstream-svc, sax-http-lb, vllm-service)");
  generate->add_option("--port", generate_flags->port, "The Service's port (default: 8000, 8888)");
  generate->add_option("--timeout", generate_flags->timeout, "Give up on the answer after this long (default 10m)");
  AddKubeAccessFlags(*generate, generate_flags->access);
  generate->footer(
      "--format json adds the timings: total_s, and with --stream time_to_first_token_s and tokens_per_s;\n"
      "vLLM adds the server's usage (and tokens_per_s of a whole answer from it).\n"
      "Example:\n"
      "  tputrain serve generate --cluster ray-tpu --location us-east5-b --prompt \"What are TPUs?\" --stream\n"
      "  tputrain serve generate --engine saxml --cluster saxml-tpu --location us-east1 --query \"Q: ... A:\"\n"
      "  tputrain serve generate --engine vllm --message \"system:Be brief.\" --message \"user:What are TPUs?\" "
      "--stream");
  generate->callback([generate_flags, &context] { context.outcome = RunGenerate(*generate_flags, context); });
}

}  // namespace tputrain::cli
