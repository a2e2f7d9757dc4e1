#include "commands/serve_flags.h"
#include "commands/serve_generate_flags.h"
#include "tputrain/core/number.h"
#include "tputrain/serving/vllm.h"

namespace tputrain::cli {
namespace {

core::Error OnlyFor(const std::string& flag, const std::string& engines) {
  return core::Error::Usage(flag + ": only for --engine " + engines);
}

}  // namespace

core::Result<serving::GenerateRequest> GenerateRequestOf(const GenerateFlags& flags, serving::EngineKind kind,
                                                         const serving::Engine& engine) {
  const std::string name(serving::EngineName(kind));
  serving::GenerateRequest request;
  request.stream = flags.stream;
  if (flags.stream && !engine.CanStream()) {
    return core::Fail(core::Error::Usage("--stream: " + name + " answers whole; leave --stream out"));
  }

  // What is asked: a prompt, or (where the engine chats) messages or the prompt as one.
  if (!engine.Chats()) {
    if (!flags.messages.empty()) return core::Fail(OnlyFor("--message", "vllm"));
    if (flags.chat) return core::Fail(OnlyFor("--chat", "vllm"));
  }
  if (!flags.messages.empty() && (!flags.prompt.empty() || flags.chat)) {
    return core::Fail(core::Error::Usage(std::string(flags.chat ? "--chat" : "--prompt") +
                                         ": give either --prompt or --message ROLE:TEXT, not both"));
  }
  if (flags.messages.empty() && flags.prompt.empty()) {
    return core::Fail(core::Error::Usage(std::string("--prompt: required") +
                                         (engine.Chats() ? " (or --message ROLE:TEXT, repeatable)" : "")));
  }
  if (auto valid = serving::CheckPromptText("--prompt", flags.prompt); !valid) return core::Fail(valid.error());
  request.prompt = flags.prompt;
  for (const auto& message : flags.messages) {
    auto parsed = serving::ParseChatMessage("--message", message);
    if (!parsed) return core::Fail(parsed.error());
    request.messages.push_back(std::move(*parsed));
  }
  if (flags.chat) request.messages.push_back({"user", flags.prompt});

  if (!flags.max_tokens.empty() && !engine.TakesMaxTokens()) {
    return core::Fail(
        core::Error::Usage("--max-tokens: " + name + " decodes as many steps as the model's own configuration says"));
  }
  if (engine.TakesMaxTokens()) {
    // vLLM refuses max_tokens 0; jetstream-http answers its prefill token for it.
    const int64_t least = kind == serving::EngineKind::kVllm ? 1 : 0;
    auto max_tokens =
        core::ParseWhole("--max-tokens", flags.max_tokens.empty() ? "200" : flags.max_tokens, least, 1000000);
    if (!max_tokens) return core::Fail(max_tokens.error());
    request.max_tokens = static_cast<int>(*max_tokens);
  }
  if (!flags.temperature.empty()) {
    if (!engine.TakesTemperature()) return core::Fail(OnlyFor("--temperature", "vllm"));
    auto temperature = core::ParseAmount("--temperature", flags.temperature, 2.0);
    if (!temperature) return core::Fail(temperature.error());
    request.temperature = *temperature;
  }

  if (kind == serving::EngineKind::kSaxml) {
    auto id = SaxModelIdOf("--model", flags.model);
    if (!id) return core::Fail(id.error());
    request.model = *id;
  } else if (kind == serving::EngineKind::kVllm) {
    if (!flags.model.empty()) {
      if (auto valid = serving::CheckServedModelName("--model", flags.model); !valid) return core::Fail(valid.error());
    }
    request.model = flags.model;
  } else if (!flags.model.empty()) {
    return core::Fail(core::Error::Usage("--model: only for --engine saxml or vllm (jetstream-http serves one model)"));
  }
  return request;
}

}  // namespace tputrain::cli
