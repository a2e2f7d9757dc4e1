// Saxml's sax-http (seed 003's `sax-http` Deployment, port 8888). Generate takes exactly
// {"model", "query"} (the older server refuses any other key) and answers candidates [[text,
// score], ...], bare (newer) or as {"generate_response": [...]} (older); GET / answers
// {"message": "HTTP Server for SAX Client"} once the server is up. See saxml.h for the rest.
#include "tputrain/serving/saxml.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines.h"
#include "error_text.h"
#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::serving {
namespace {

http::Request JsonRequest(std::string method, std::string url, const nlohmann::json& body) {
  http::Request out;
  out.method = std::move(method);
  out.url = std::move(url);
  out.headers = {{"Content-Type", "application/json"}};
  out.body = body.dump();
  return out;
}

bool Contains(std::string_view text, std::string_view part) {
  auto lower = [](std::string_view in) {
    std::string out(in);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

// Saxml's client reports absl statuses ("NOT_FOUND: ..."); the words decide the kind.
core::ErrorKind KindOfSaxStatus(const std::string& text, int http_status) {
  if (Contains(text, "NOT_FOUND") || Contains(text, "not found")) return core::ErrorKind::kNotFound;
  if (Contains(text, "ALREADY_EXISTS") || Contains(text, "already exists")) return core::ErrorKind::kAlreadyExists;
  if (Contains(text, "UNAVAILABLE") || Contains(text, "unavailable")) return core::ErrorKind::kUnavailable;
  if (Contains(text, "INVALID_ARGUMENT")) return core::ErrorKind::kInvalidArgument;
  return core::KindFromHttpStatus(http_status);
}

class Saxml final : public Engine {
 public:
  EngineKind kind() const override { return EngineKind::kSaxml; }
  // The seed's Service name; a LoadBalancer there, a ClusterIP unless serve up --expose.
  std::string DefaultService() const override { return "sax-http-lb"; }
  int DefaultPort() const override { return 8888; }
  bool CanStream() const override { return false; }
  bool TakesMaxTokens() const override { return false; }

  http::Request BuildGenerate(const std::string& base_url, const GenerateRequest& request) const override {
    http::Request out =
        JsonRequest("POST", base_url + "generate", nlohmann::json{{"model", request.model}, {"query", request.prompt}});
    out.idempotent = false;  // a lost reply is not answered by asking twice
    return out;
  }

  http::Request BuildHealthCheck(const std::string& base_url) const override {
    http::Request out;
    out.url = base_url;
    return out;
  }

  bool IsHealthy(const http::Response& response) const override {
    if (response.status != 200) return false;
    auto body = AnswerJson(response.body);
    return body.is_object() && body.contains("message");
  }

  core::Result<std::string> ParseGenerated(const http::Response& response) const override {
    auto body = AnswerJson(response.body);
    nlohmann::json candidates = body;
    if (body.is_object() && body.contains("generate_response")) candidates = body["generate_response"];
    // The best candidate: the highest score (log-probability); the server's order on a tie.
    const nlohmann::json* best = nullptr;
    if (candidates.is_array()) {
      for (const auto& candidate : candidates) {
        if (!candidate.is_array() || candidate.empty() || !candidate[0].is_string()) continue;
        auto score = [](const nlohmann::json& pair) {
          return pair.size() > 1 && pair[1].is_number() ? pair[1].get<double>() : -1e300;
        };
        if (best == nullptr || score(candidate) > score(*best)) best = &candidate;
      }
    }
    if (best == nullptr) {
      return core::Fail(
          core::Error::Internal("sax-http answered without [text, score] candidates: " + OneLine(response.body)));
    }
    return (*best)[0].get<std::string>();
  }

  std::unique_ptr<TokenStreamDecoder> NewStreamDecoder() const override { return nullptr; }

  core::Error ErrorFrom(const http::Response& response) const override { return SaxHttpError(response); }
};

bool IsSaxNamePart(std::string_view part) {
  return !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

}  // namespace

std::unique_ptr<Engine> MakeSaxml() { return std::make_unique<Saxml>(); }

core::Status CheckSaxModelId(std::string_view flag, std::string_view id) {
  // Saxml names a model /ROOT/CELL/NAME (the seed: /sax/test/spmd); the cell is /ROOT/CELL.
  std::vector<std::string_view> parts;
  std::string_view rest = id;
  bool shaped = rest.size() > 1 && rest.front() == '/' && id.size() <= 256;
  while (shaped && !rest.empty()) {
    rest.remove_prefix(1);
    auto slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  shaped = shaped && parts.size() == 3 && std::all_of(parts.begin(), parts.end(), IsSaxNamePart);
  if (shaped) return {};
  return core::Fail(core::Error::Usage(std::string(flag) + ": expected a Saxml model id /sax/CELL/NAME (e.g. " +
                                       "/sax/test/spmd), got '" + std::string(id) + "'"));
}

std::string SaxCellOf(std::string_view id) {
  auto last = id.rfind('/');
  return std::string(id.substr(0, last == std::string_view::npos ? 0 : last));
}

http::Request BuildPublish(const std::string& base_url, const SaxModel& model) {
  // Exactly these four keys: the older server refuses any other count.
  http::Request out = JsonRequest("POST", base_url + "publish",
                                  nlohmann::json{{"model", model.id},
                                                 {"model_path", model.model_path},
                                                 {"checkpoint", model.checkpoint},
                                                 {"replicas", model.replicas}});
  out.idempotent = false;  // a second publish of the same id is refused as ALREADY_EXISTS
  return out;
}

http::Request BuildListCell(const std::string& base_url, const std::string& id) {
  // A GET with a JSON body: both servers read the model id from it.
  return JsonRequest("GET", base_url + "listcell", nlohmann::json{{"model", id}});
}

http::Request BuildUnpublish(const std::string& base_url, const std::string& id) {
  http::Request out = JsonRequest("POST", base_url + "unpublish", nlohmann::json{{"model", id}});
  out.idempotent = false;
  return out;
}

core::Result<SaxCellEntry> ParseListCell(const http::Response& response) {
  auto body = AnswerJson(response.body);
  auto number = [&](const char* key) -> std::optional<int64_t> {
    if (!body.is_object() || !body.contains(key)) return std::nullopt;
    const auto& value = body[key];
    if (value.is_number_integer()) return value.get<int64_t>();
    return std::nullopt;
  };
  auto active = number("active_replicas");
  auto most = number("max_replicas");
  if (!active || !most) {
    return core::Fail(core::Error::Internal("sax-http's /listcell answered without max_replicas and active_replicas: " +
                                            OneLine(response.body)));
  }
  return SaxCellEntry{core::StringAt(body, "model"), core::StringAt(body, "model_path"),
                      core::StringAt(body, "checkpoint"), *most, *active};
}

core::Error SaxHttpError(const http::Response& response) {
  auto body = AnswerJson(response.body);
  const std::string status = " (HTTP " + std::to_string(response.status) + ")";
  core::Error error = core::Error::Make(core::KindFromHttpStatus(response.status), "");
  error.http_status = response.status;
  if (body.is_object()) {
    if (body.contains("Error") && body["Error"].is_string()) {  // the older server
      const std::string text = body["Error"].get<std::string>();
      error.kind = KindOfSaxStatus(text, response.status);
      error.message = "sax-http: " + OneLine(text) + status;
    } else if (body.contains("detail") && body["detail"].is_array()) {  // FastAPI's validation
      error.message = "sax-http refused the request: " + ValidationDetail(body["detail"]) + status;
    } else if (body.contains("detail") && body["detail"].is_string()) {
      const std::string text = body["detail"].get<std::string>();
      error.kind = KindOfSaxStatus(text, response.status);
      error.message = "sax-http: " + OneLine(text) + status;
    } else if (auto proxy = ServiceProxyStatus(body); !proxy.empty()) {
      error.message = proxy + status;
    } else if (body.contains("message") && body["message"].is_string()) {  // the older server's unknown path
      error.message = "sax-http: " + OneLine(body["message"].get<std::string>()) + status;
    }
  }
  if (error.message.empty()) error.message = "sax-http answered: " + OneLine(response.body) + status;
  return error;
}

}  // namespace tputrain::serving
