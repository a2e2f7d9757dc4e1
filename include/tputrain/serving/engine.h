#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// The model servers tputrain talks to, behind one interface: each engine owns its request and
// response shapes, its readiness probe and its error bodies, so the serve workflow never
// parses an engine's JSON itself: JetStream (jetstream-http), Saxml (sax-http) and vLLM (its
// OpenAI-compatible server).
namespace tputrain::serving {

enum class EngineKind {
  kJetStream,  // "jetstream": MaxText's engine behind jetstream-http (seed 002)
  kSaxml,      // "saxml": Saxml's model servers behind sax-http (seed 003)
  kVllm,       // "vllm": vLLM's OpenAI-compatible server (/v1/completions, /v1/chat/completions)
};

std::string_view EngineName(EngineKind kind);
// Parses --engine; a usage error lists the known engines.
core::Result<EngineKind> ParseEngine(std::string_view flag, std::string_view name);

struct ChatMessage {
  std::string role;  // system, user, assistant, developer
  std::string content;
};

struct GenerateRequest {
  std::string prompt;
  int max_tokens = 0;
  bool stream = false;
  std::string model;  // which served model, where a server serves several (Saxml: /sax/test/spmd)
  // A chat instead of a prompt, where the engine chats (vLLM's /v1/chat/completions).
  std::vector<ChatMessage> messages;
  std::optional<double> temperature;  // the server's default when unset
};

// What the server counted for one answer (OpenAI's `usage`), where it says.
struct TokenUsage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
};

// Turns a streamed body into text pieces as it arrives; each engine knows its own framing.
class TokenStreamDecoder {
 public:
  virtual ~TokenStreamDecoder() = default;
  // The text pieces `chunk` completes.
  virtual core::Result<std::vector<std::string>> Feed(std::string_view chunk) = 0;
  // Called once the body has ended: the text pieces its end completes; fails when the framing
  // says the answer was cut short.
  virtual core::Result<std::vector<std::string>> Finish() { return std::vector<std::string>{}; }
  // The server's count, where the stream carried one.
  virtual std::optional<TokenUsage> usage() const { return std::nullopt; }
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // The Service the seed puts in front of the server, and its port.
  virtual std::string DefaultService() const = 0;
  virtual int DefaultPort() const = 0;
  // Whether the server can send its text as it is generated (sax-http answers whole).
  virtual bool CanStream() const = 0;
  // Whether the request's max_tokens reaches the server (sax-http v1.0.0 refuses any key but
  // model and query; the model's own decode steps apply).
  virtual bool TakesMaxTokens() const = 0;
  // Whether the engine takes a chat (GenerateRequest::messages) and a sampling temperature.
  virtual bool Chats() const { return false; }
  virtual bool TakesTemperature() const { return false; }
  // `base_url` ends in '/': the service proxy's URL, or a local listener's.
  virtual http::Request BuildGenerate(const std::string& base_url, const GenerateRequest& request) const = 0;
  virtual http::Request BuildHealthCheck(const std::string& base_url) const = 0;
  // Whether a health-check answer means "serving".
  virtual bool IsHealthy(const http::Response& response) const = 0;
  // Where a request needs a model name and the server lists what it serves (vLLM: GET
  // /v1/models), the request that asks; nullopt for the other engines.
  virtual std::optional<http::Request> BuildListModels(const std::string& /*base_url*/) const { return std::nullopt; }
  // The model a request names when the user names none: the server's base model.
  virtual core::Result<std::string> ParseServedModel(const http::Response& response) const;
  // The generated text of a whole (non-streamed) answer.
  virtual core::Result<std::string> ParseGenerated(const http::Response& response) const = 0;
  // The server's count of a whole answer's tokens, where it gives one.
  virtual std::optional<TokenUsage> UsageOf(const http::Response& /*response*/) const { return std::nullopt; }
  // Null for an engine that cannot stream.
  virtual std::unique_ptr<TokenStreamDecoder> NewStreamDecoder() const = 0;
  // One line for an answer that is not a success: the server's own words where it has any
  // (a validation detail, "the engine is not up yet"), tagged with its HTTP status.
  virtual core::Error ErrorFrom(const http::Response& response) const = 0;
};

std::unique_ptr<Engine> MakeEngine(EngineKind kind);

}  // namespace tputrain::serving
