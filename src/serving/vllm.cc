// vLLM's OpenAI-compatible server (`vllm serve`, port 8000; ../shared/notes/vllm.md §2):
// POST /v1/completions {"model", "prompt", "max_tokens", ...} answers choices[0].text;
// POST /v1/chat/completions {"model", "messages", "max_completion_tokens", ...} answers
// choices[0].message.content; both with a `usage`. With "stream": true each chunk is a
// server-sent event `data: {...}` (completions: choices[0].text; chat: choices[0].delta.content,
// the first delta carrying only the role), then with stream_options.include_usage a last chunk
// of `choices: []` and the usage, then `data: [DONE]`. An error after the 200 comes as a
// `data: {"error": {...}}` event. GET /health is 200 once the engine serves (the port is closed
// while it loads); GET /v1/models lists the served model first, its LoRA adapters after it.
#include <nlohmann/json.hpp>

#include "engines.h"
#include "error_text.h"
#include "sse.h"
#include "tputrain/core/json.h"
#include "vllm_error.h"

namespace tputrain::serving {
namespace {

std::optional<TokenUsage> UsageIn(const nlohmann::json& body) {
  // The llm-d simulator sends "usage": null in every chunk; vLLM leaves it out.
  if (!body.is_object() || !body.contains("usage") || !body["usage"].is_object()) return std::nullopt;
  const auto& usage = body["usage"];
  auto count = [&](const char* key) {
    return usage.contains(key) && usage[key].is_number_integer() ? usage[key].get<int64_t>() : int64_t{0};
  };
  return TokenUsage{count("prompt_tokens"), count("completion_tokens"), count("total_tokens")};
}

// The text of a choice, whole (text, or message.content) or streamed (text, or delta.content);
// "" where a chunk carries none (the chat's first delta, the usage chunk, a tool call).
core::Result<std::string> ChoiceText(const nlohmann::json& body, const char* chat_key) {
  if (!body.is_object() || !body.contains("choices") || !body["choices"].is_array()) {
    return core::Fail(core::Error::Internal("no choices"));
  }
  if (body["choices"].empty()) return std::string();
  const auto& choice = body["choices"][0];
  if (!choice.is_object()) return core::Fail(core::Error::Internal("a choice that is not an object"));
  if (choice.contains("text")) {
    if (!choice["text"].is_string()) return core::Fail(core::Error::Internal("a choice's text that is not a string"));
    return choice["text"].get<std::string>();
  }
  if (choice.contains(chat_key) && choice[chat_key].is_object()) {
    const auto& message = choice[chat_key];
    if (!message.contains("content") || message["content"].is_null()) return std::string();
    if (message["content"].is_string()) return message["content"].get<std::string>();
  }
  return core::Fail(core::Error::Internal("a choice with no text"));
}

class VllmStreamDecoder final : public TokenStreamDecoder {
 public:
  core::Result<std::vector<std::string>> Feed(std::string_view chunk) override {
    auto events = events_.Feed(chunk);
    if (!events) return core::Fail(events.error());
    return Take(*events);
  }

  core::Result<std::vector<std::string>> Finish() override {
    auto events = events_.Finish();
    if (!events) return core::Fail(events.error());
    auto pieces = Take(*events);
    if (!pieces) return pieces;
    if (!done_) {
      return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable,
                                          "the vLLM server's stream ended before its `data: [DONE]`: the answer "
                                          "was cut short"));
    }
    return pieces;
  }

  std::optional<TokenUsage> usage() const override { return usage_; }

 private:
  core::Result<std::vector<std::string>> Take(const std::vector<std::string>& events) {
    std::vector<std::string> pieces;
    for (const auto& event : events) {
      if (done_) continue;  // nothing counts after the end
      if (event == "[DONE]") {
        done_ = true;
        continue;
      }
      auto chunk = AnswerJson(event, {.max_bytes = ServerSentEvents::kMaxLineBytes});
      if (!chunk.is_object()) {
        return core::Fail(
            core::Error::Internal("the vLLM server streamed something other than a JSON chunk: " + OneLine(event)));
      }
      if (IsVllmError(chunk)) {
        // Mid-stream the status is already 200: the chunk's own code says what went wrong.
        int code = 500;
        const auto& inner = chunk.contains("error") && chunk["error"].is_object() ? chunk["error"] : chunk;
        if (inner.contains("code") && inner["code"].is_number_integer()) {
          const auto given = inner["code"].get<int64_t>();
          if (given >= 400 && given <= 599) code = static_cast<int>(given);
        }
        return core::Fail(VllmError(code, chunk, event));
      }
      if (auto usage = UsageIn(chunk)) usage_ = usage;
      auto text = ChoiceText(chunk, "delta");
      if (!text) {
        return core::Fail(core::Error::Internal("the vLLM server streamed a chunk with " + text.error().message + ": " +
                                                OneLine(event)));
      }
      pieces.push_back(std::move(*text));
    }
    return pieces;
  }

  ServerSentEvents events_;
  bool done_ = false;
  std::optional<TokenUsage> usage_;
};

http::Request Get(std::string url) {
  http::Request out;
  out.url = std::move(url);
  return out;
}

class Vllm final : public Engine {
 public:
  EngineKind kind() const override { return EngineKind::kVllm; }
  // The Service GKE's vLLM tutorial puts in front of its Deployment, on vLLM's port.
  std::string DefaultService() const override { return "vllm-service"; }
  int DefaultPort() const override { return 8000; }
  bool CanStream() const override { return true; }
  bool TakesMaxTokens() const override { return true; }
  bool Chats() const override { return true; }
  bool TakesTemperature() const override { return true; }

  http::Request BuildGenerate(const std::string& base_url, const GenerateRequest& request) const override {
    const bool chat = !request.messages.empty();
    nlohmann::json body = nlohmann::json::object();
    if (!request.model.empty()) body["model"] = request.model;
    if (chat) {
      body["messages"] = nlohmann::json::array();
      for (const auto& message : request.messages) {
        body["messages"].push_back({{"role", message.role}, {"content", message.content}});
      }
      // max_tokens is deprecated for chat in vLLM's API.
      body["max_completion_tokens"] = request.max_tokens;
    } else {
      body["prompt"] = request.prompt;
      body["max_tokens"] = request.max_tokens;
    }
    if (request.temperature) body["temperature"] = *request.temperature;
    if (request.stream) {
      body["stream"] = true;
      // The last chunk then carries the usage: the token count for tokens/s.
      body["stream_options"] = {{"include_usage", true}};
    }
    http::Request out;
    out.method = "POST";
    out.url = base_url + (chat ? "v1/chat/completions" : "v1/completions");
    out.headers = {{"Content-Type", "application/json"}};
    out.body = body.dump();
    // A generate is not repeated on a lost reply: it would spend the accelerator twice.
    out.idempotent = false;
    return out;
  }

  http::Request BuildHealthCheck(const std::string& base_url) const override { return Get(base_url + "health"); }

  bool IsHealthy(const http::Response& response) const override { return response.status == 200; }

  std::optional<http::Request> BuildListModels(const std::string& base_url) const override {
    return Get(base_url + "v1/models");
  }

  core::Result<std::string> ParseServedModel(const http::Response& response) const override {
    auto body = AnswerJson(response.body);
    if (!body.is_object() || !body.contains("data") || !body["data"].is_array()) {
      return core::Fail(core::Error::Internal("the vLLM server's GET /v1/models answered no list of models: " +
                                              OneLine(response.body)));
    }
    // The base model is the one with no parent (a LoRA adapter names its base model there).
    const nlohmann::json* first = nullptr;
    for (const auto& model : body["data"]) {
      if (!model.is_object() || !model.contains("id") || !model["id"].is_string()) continue;
      if (!first) first = &model;
      if (!model.contains("parent") || model["parent"].is_null()) return model["id"].get<std::string>();
    }
    if (first) return (*first)["id"].get<std::string>();
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "the vLLM server serves no model (GET /v1/models listed none)"));
  }

  core::Result<std::string> ParseGenerated(const http::Response& response) const override {
    auto body = AnswerJson(response.body);
    if (IsVllmError(body)) return core::Fail(VllmError(response.status, body, response.body));
    auto text = ChoiceText(body, "message");
    if (!text || body["choices"].empty()) {
      return core::Fail(
          core::Error::Internal("the vLLM server answered without a choice's text: " + OneLine(response.body)));
    }
    return text;
  }

  std::optional<TokenUsage> UsageOf(const http::Response& response) const override {
    return UsageIn(AnswerJson(response.body));
  }

  std::unique_ptr<TokenStreamDecoder> NewStreamDecoder() const override {
    return std::make_unique<VllmStreamDecoder>();
  }

  core::Error ErrorFrom(const http::Response& response) const override {
    return VllmError(response.status, AnswerJson(response.body), response.body);
  }
};

}  // namespace

std::unique_ptr<Engine> MakeVllm() { return std::make_unique<Vllm>(); }

}  // namespace tputrain::serving
