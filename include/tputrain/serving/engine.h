#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// The model servers tputrain talks to, behind one interface: each engine owns its request and
// response shapes, its readiness probe and its error bodies, so the serve workflow never
// parses an engine's JSON itself. JetStream (jetstream-http) is the first; its successors
// (an OpenAI-compatible server, Saxml's sax-http) plug in here.
namespace tputrain::serving {

enum class EngineKind {
  kJetStream,  // "jetstream": MaxText's engine behind jetstream-http (seed 002)
  kSaxml,      // "saxml": Saxml's model servers behind sax-http (seed 003)
};

std::string_view EngineName(EngineKind kind);
// Parses --engine; a usage error lists the known engines.
core::Result<EngineKind> ParseEngine(std::string_view flag, std::string_view name);

struct GenerateRequest {
  std::string prompt;
  int max_tokens = 0;
  bool stream = false;
  std::string model;  // which served model, where a server serves several (Saxml: /sax/test/spmd)
};

// Turns a streamed body into text pieces as it arrives; each engine knows its own framing.
class TokenStreamDecoder {
 public:
  virtual ~TokenStreamDecoder() = default;
  // The text pieces `chunk` completes.
  virtual core::Result<std::vector<std::string>> Feed(std::string_view chunk) = 0;
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
  // `base_url` ends in '/': the service proxy's URL, or a local listener's.
  virtual http::Request BuildGenerate(const std::string& base_url, const GenerateRequest& request) const = 0;
  virtual http::Request BuildHealthCheck(const std::string& base_url) const = 0;
  // Whether a health-check answer means "serving".
  virtual bool IsHealthy(const http::Response& response) const = 0;
  // The generated text of a whole (non-streamed) answer.
  virtual core::Result<std::string> ParseGenerated(const http::Response& response) const = 0;
  // Null for an engine that cannot stream.
  virtual std::unique_ptr<TokenStreamDecoder> NewStreamDecoder() const = 0;
  // One line for an answer that is not a success: the server's own words where it has any
  // (a validation detail, "the engine is not up yet"), tagged with its HTTP status.
  virtual core::Error ErrorFrom(const http::Response& response) const = 0;
};

std::unique_ptr<Engine> MakeEngine(EngineKind kind);

}  // namespace tputrain::serving
