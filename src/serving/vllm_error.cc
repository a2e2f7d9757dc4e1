#include "vllm_error.h"

#include <string>

#include "error_text.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::serving {
namespace {

// A server's words for a terminal: one line, and no control characters (a model's text may hold
// escape sequences).
std::string Printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return OneLine(std::move(text));
}

}  // namespace

bool IsVllmError(const nlohmann::json& body) {
  if (!body.is_object()) return false;
  return body.contains("error") || core::StringAt(body, "object") == "error";
}

core::Error VllmError(int status, const nlohmann::json& body, std::string_view raw) {
  std::string message;
  std::string type;
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    message = core::StringAt(body["error"], "message");
    type = core::StringAt(body["error"], "type");
  } else if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    message = body["error"].get<std::string>();
  } else if (core::StringAt(body, "object") == "error") {
    message = core::StringAt(body, "message");
    type = core::StringAt(body, "type");
  } else if (body.is_object() && body.contains("detail")) {
    message = body["detail"].is_array()
                  ? ValidationDetail(body["detail"])
                  : (body["detail"].is_string() ? body["detail"].get<std::string>() : body["detail"].dump());
  }
  core::Error error = core::Error::Make(core::KindFromHttpStatus(status), "");
  error.http_status = status;
  const std::string tag =
      " (" + (type.empty() ? std::string() : Printable(type) + ", ") + "HTTP " + std::to_string(status) + ")";
  if (message.empty()) {
    if (auto proxy = ServiceProxyStatus(body); !proxy.empty()) {
      error.message = proxy + " (HTTP " + std::to_string(status) + ")";
      // vLLM listens on its port only once the model is loaded and compiled: a refused
      // connection is a server still loading (or one that exited), not a broken one.
      if (proxy.find("connection refused") != std::string::npos) {
        error.kind = core::ErrorKind::kUnavailable;
        error.message =
            "the vLLM server does not accept connections yet (its port opens once the model is loaded; "
            "or it exited): " +
            error.message + "; tputrain serve status shows where it stands";
      }
      return error;
    }
    message = std::string(raw);
  }
  message = Printable(std::move(message));
  if (message.empty()) message = "no reason given";
  if (status == 503) {
    error.kind = core::ErrorKind::kUnavailable;
    error.message =
        "the vLLM server is not serving: " + message + tag + "; tputrain serve status shows where it stands";
  } else if (status >= 500) {
    error.message = "the vLLM server failed: " + message + tag;
  } else {
    error.message = "the vLLM server refused the request: " + message + tag;
  }
  return error;
}

}  // namespace tputrain::serving
