#include "tputrain/workflow/serve_ask.h"

#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"
#include "tputrain/k8s/names.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/serving/vllm.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {
namespace {

core::Error OnlyFor(const std::string& flag, const std::string& engines) {
  return core::Error::Usage(flag + ": only for --engine " + engines);
}

// What each engine takes is checked here, before any connection.
core::Result<serving::GenerateRequest> GenerateRequestOf(const ServeAskRequest& flags, serving::EngineKind kind,
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

}  // namespace

core::Result<ServeAskPlan> PlanServeAsk(const ServeAskRequest& request) {
  ServeAskPlan plan;
  plan.access = request.access;
  auto kind = serving::ParseEngine("--engine", request.engine);
  if (!kind) return core::Fail(kind.error());
  plan.kind = *kind;
  plan.engine = serving::MakeEngine(*kind);
  plan.service = request.service.empty() ? plan.engine->DefaultService() : request.service;
  if (auto valid = k8s::CheckObjectName("--service", plan.service); !valid) return core::Fail(valid.error());
  auto port = request.port.empty() ? core::Result<int64_t>(plan.engine->DefaultPort())
                                   : core::ParseWhole("--port", request.port, 1, 65535);
  if (!port) return core::Fail(port.error());
  plan.port = static_cast<int>(*port);
  auto asked = GenerateRequestOf(request, *kind, *plan.engine);
  if (!asked) return core::Fail(asked.error());
  plan.request = std::move(*asked);
  auto timeout = core::ParseDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  plan.timeout = *timeout;
  return plan;
}

core::Result<ServeAskOutcome> ServeAsk(Root& root, const ServeAskPlan& plan, bool dry_run,
                                       const std::function<void(std::string_view)>& on_text) {
  auto connection = ConnectCluster(root, plan.access);
  if (!connection) return core::Fail(connection.error());
  k8s::Client& client = *(*connection)->client;
  ServeAskOutcome outcome;
  outcome.engine = std::string(serving::EngineName(plan.kind));
  outcome.service = plan.service;
  outcome.ns = plan.access.ns.empty() ? client.default_namespace() : plan.access.ns;
  outcome.takes_max_tokens = plan.engine->TakesMaxTokens();
  const std::string base_url =
      k8s::ServiceProxyUrl(client.server(), outcome.ns, plan.service, std::to_string(plan.port));
  if (dry_run) {
    // vLLM with no --model asks which model it serves first.
    if (auto list = plan.engine->BuildListModels(base_url); list && plan.request.model.empty()) {
      outcome.planned.push_back(*list);
    }
    outcome.planned.push_back(plan.engine->BuildGenerate(base_url, plan.request));
    return outcome;
  }
  ServeEndpoint endpoint{*(*connection)->transport, base_url, root.clock(), plan.timeout};
  auto generated = Generate(endpoint, *plan.engine, plan.request, on_text);
  if (!generated) return core::Fail(generated.error());
  outcome.generated = std::move(*generated);
  return outcome;
}

}  // namespace tputrain::workflow
