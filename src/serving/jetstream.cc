// JetStream's HTTP front end (jetstream-http, the seeds' `http_server.py` on port 8000):
// POST /generate {"prompt", "max_tokens"[, "stream"]} answers {"response": TEXT}, or with
// "stream": true JSON objects {"id", "time_created", "text"} back to back; GET /healthcheck is
// 200 {"response": {"is_live": true}} once the engine's gRPC server is up, 500 before.
#include <nlohmann/json.hpp>

#include "engines.h"
#include "error_text.h"
#include "json_stream.h"
#include "tputrain/core/json.h"

namespace tputrain::serving {
namespace {

// gRPC's words inside an AioRpcError detail: "status = StatusCode.UNAVAILABLE".
std::string GrpcStatusOf(const std::string& detail) {
  constexpr std::string_view kMarker = "StatusCode.";
  auto at = detail.find(kMarker);
  if (at == std::string::npos) return "";
  at += kMarker.size();
  auto end = at;
  while (end < detail.size() && (std::isupper(static_cast<unsigned char>(detail[end])) || detail[end] == '_')) ++end;
  return detail.substr(at, end - at);
}

class JetStreamDecoder final : public TokenStreamDecoder {
 public:
  core::Result<std::vector<std::string>> Feed(std::string_view chunk) override {
    auto values = splitter_.Feed(chunk);
    if (!values) return core::Fail(values.error());
    std::vector<std::string> pieces;
    for (const auto& value : *values) {
      auto object = AnswerJson(value);
      if (!object.is_object() || !object.contains("text") || !object["text"].is_string()) {
        return core::Fail(
            core::Error::Internal("jetstream-http streamed something other than a token: " + OneLine(value)));
      }
      pieces.push_back(object["text"].get<std::string>());
    }
    return pieces;
  }

 private:
  JsonValueSplitter splitter_;
};

class JetStream final : public Engine {
 public:
  EngineKind kind() const override { return EngineKind::kJetStream; }
  std::string DefaultService() const override { return "jetstream-svc"; }
  int DefaultPort() const override { return 8000; }
  bool CanStream() const override { return true; }
  bool TakesMaxTokens() const override { return true; }

  http::Request BuildGenerate(const std::string& base_url, const GenerateRequest& request) const override {
    nlohmann::json body = {{"prompt", request.prompt}, {"max_tokens", request.max_tokens}};
    if (request.stream) body["stream"] = true;
    http::Request out;
    out.method = "POST";
    out.url = base_url + "generate";
    out.headers = {{"Content-Type", "application/json"}};
    out.body = body.dump();
    // A generate is not repeated on a lost reply: it would spend the accelerator twice.
    out.idempotent = false;
    return out;
  }

  http::Request BuildHealthCheck(const std::string& base_url) const override {
    http::Request out;
    out.url = base_url + "healthcheck";
    return out;
  }

  bool IsHealthy(const http::Response& response) const override {
    if (response.status != 200) return false;
    auto body = AnswerJson(response.body);
    if (!body.is_object() || !body.contains("response") || !body["response"].is_object()) return false;
    const auto& live = body["response"];
    return live.contains("is_live") && live["is_live"].is_boolean() && live["is_live"].get<bool>();
  }

  core::Result<std::string> ParseGenerated(const http::Response& response) const override {
    auto body = AnswerJson(response.body);
    if (!body.is_object() || !body.contains("response") || !body["response"].is_string()) {
      return core::Fail(
          core::Error::Internal("jetstream-http answered without a \"response\" text: " + OneLine(response.body)));
    }
    return body["response"].get<std::string>();
  }

  std::unique_ptr<TokenStreamDecoder> NewStreamDecoder() const override { return std::make_unique<JetStreamDecoder>(); }

  core::Error ErrorFrom(const http::Response& response) const override {
    auto body = AnswerJson(response.body);
    const std::string status = " (HTTP " + std::to_string(response.status) + ")";
    core::Error error = core::Error::Make(core::KindFromHttpStatus(response.status), "");
    error.http_status = response.status;
    if (body.is_object() && body.contains("detail")) {
      const auto& detail = body["detail"];
      if (detail.is_array()) {
        error.message = "jetstream-http refused the request: " + ValidationDetail(detail) + status;
      } else if (detail.is_string()) {
        const std::string text = detail.get<std::string>();
        const std::string grpc = GrpcStatusOf(text);
        if (grpc == "UNAVAILABLE" || text == "Healthcheck failed") {
          error.kind = core::ErrorKind::kUnavailable;
          error.message = "the engine behind jetstream-http is not serving (still loading, or down)" +
                          (grpc.empty() ? std::string() : ": gRPC " + grpc) + status +
                          "; tputrain serve status shows where it stands";
        } else {
          error.message = "jetstream-http: " + OneLine(text) + status;
        }
      }
    } else if (auto proxy = ServiceProxyStatus(body); !proxy.empty()) {
      error.message = proxy + status;  // no such Service, or no endpoints behind it yet
    }
    if (error.message.empty()) error.message = "jetstream-http answered: " + OneLine(response.body) + status;
    return error;
  }
};

}  // namespace

std::unique_ptr<Engine> MakeJetStream() { return std::make_unique<JetStream>(); }

}  // namespace tputrain::serving
