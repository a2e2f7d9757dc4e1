#include "tputrain/k8s/client.h"

#include <string_view>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/utf8.h"

namespace tputrain::k8s {
namespace {

// One line of a watch: an event with its object, which etcd caps at about 1.5 MiB.
constexpr size_t kMaxStreamedLineBytes = 64 * core::kMiB;

core::ErrorKind KindFor(int status) {
  switch (status) {
    case 400:
    case 422:
      return core::ErrorKind::kInvalidArgument;
    case 401:
      return core::ErrorKind::kUnauthenticated;
    case 403:
      return core::ErrorKind::kPermissionDenied;
    case 404:
      return core::ErrorKind::kNotFound;
    case 409:
      return core::ErrorKind::kAborted;
    case 410:
      return core::ErrorKind::kFailedPrecondition;
    case 429:
      return core::ErrorKind::kResourceExhausted;
    case 504:
      return core::ErrorKind::kDeadlineExceeded;
    default:
      return status >= 500 ? core::ErrorKind::kUnavailable : core::ErrorKind::kInternal;
  }
}

// The structured-merge-diff messages quote Go values ("&value.valueUnstructured{Value:1}"). Found
// by hand: std::regex recurses once per character its `.*?` takes, and the message is the server's.
std::string CleanTypedPatchMessage(std::string message) {
  static constexpr std::string_view kOpen = "&value.valueUnstructured{Value:";
  for (size_t at = message.find(kOpen); at != std::string::npos; at = message.find(kOpen, at)) {
    const size_t close = message.find('}', at + kOpen.size());
    if (close == std::string::npos) break;
    message.erase(close, 1);
    message.erase(at, kOpen.size());
  }
  return message;
}

// `manager` in `conflict with "manager" ...`, else the whole message.
std::string ConflictingManager(const std::string& message) {
  static constexpr std::string_view kOpen = "conflict with \"";
  const size_t at = message.find(kOpen);
  if (at == std::string::npos) return message;
  const size_t close = message.find('"', at + kOpen.size());
  if (close == std::string::npos) return message;
  return message.substr(at + kOpen.size(), close - at - kOpen.size());
}

std::string Prefix(const std::string& what) { return what.empty() ? "" : what + ": "; }

}  // namespace

core::Error ErrorFromStatus(int http_status, const std::string& body, const std::string& what) {
  auto json = core::ParseJson(body, "").value_or(nullptr);
  // The server's words on the one line of an error (an admission webhook's may run to several).
  std::string message = core::OneLineExcerpt(core::StringAt(json, "message"), std::string::npos);
  std::string reason = core::StringAt(json, "reason");
  if (message.empty()) {
    message = "HTTP " + std::to_string(http_status) + (body.empty() ? "" : ": " + core::OneLineExcerpt(body, 200));
  }
  std::vector<nlohmann::json> causes;
  for (const auto& cause : core::ArrayAt(core::ObjectAt(json, "details"), "causes")) causes.push_back(cause);

  core::Error error = core::Error::Make(KindFor(http_status), "");
  error.http_status = http_status;
  error.reason = reason;
  error.where = "kubernetes";

  static constexpr std::string_view kTypedPatch = "failed to create typed patch object";
  if (http_status == 500 && message.find(kTypedPatch) != std::string::npos) {
    // A wrong type or an unknown field in the manifest: bad input, never worth a retry. The
    // server's text is "failed to create typed patch object (ns/name; gvk): .path: detail".
    std::string detail = message;
    if (auto close = message.find("): "); close != std::string::npos) detail = message.substr(close + 3);
    error.kind = core::ErrorKind::kInvalidArgument;
    error.reason = "TypedPatch";
    error.message = Prefix(what) + "invalid manifest: " + CleanTypedPatchMessage(detail);
    return error;
  }
  if (http_status == 409 && !causes.empty()) {
    std::string lines;
    for (const auto& cause : causes) {
      if (core::StringAt(cause, "reason") != "FieldManagerConflict") continue;
      // cause.message is `conflict with "manager" using group/version` (or "with ... :" forms).
      std::string cause_message = core::StringAt(cause, "message");
      std::string manager = ConflictingManager(cause_message);
      if (!lines.empty()) lines += "\n";
      std::string field = core::StringAt(cause, "field");
      lines += Prefix(what) + "field " + (field.empty() ? "?" : field) + " is managed by \"" + manager +
               "\"; pass --force-conflicts to take it over";
    }
    if (!lines.empty()) {
      error.message = lines;
      return error;
    }
  }
  if ((http_status == 422 || http_status == 400) && !causes.empty()) {
    std::string lines;
    for (const auto& cause : causes) {
      // CEL rules are skipped once a schema error is found; the server says so as a cause.
      std::string cause_message = core::OneLineExcerpt(core::StringAt(cause, "message"), std::string::npos);
      if (cause_message.find("some validation rules were not checked") != std::string::npos) continue;
      if (!lines.empty()) lines += "\n";
      std::string field = core::StringAt(cause, "field");
      if (cause_message.empty()) cause_message = core::StringAt(cause, "reason");
      lines += Prefix(what) + (field.empty() ? "" : field + ": ") + cause_message;
    }
    error.message = lines;
    return error;
  }
  error.message = Prefix(what) + message;
  return error;
}

TlsMaterial TlsFor(const ClusterAccess& access, const Credentials& credentials) {
  return TlsMaterial{access.ca_pem, credentials.client_cert_pem(), credentials.client_key_pem()};
}

Client::Client(http::Transport& transport, std::string server, std::string default_namespace, ClientOptions options)
    : transport_(transport), server_(std::move(server)), default_namespace_(std::move(default_namespace)),
      options_(options) {
  while (!server_.empty() && server_.back() == '/') server_.pop_back();
}

core::Result<http::Request> Client::Build(const std::string& method, const std::string& path, const std::string& body,
                                          const std::string& content_type) {
  http::Request request;
  request.method = method;
  request.url = server_ + path;
  request.body = body;
  request.idempotent = method != "POST";
  request.timeout = options_.request_timeout;
  request.server_dry_run = path.find("dryRun=All") != std::string::npos;
  request.headers.emplace_back("Accept", "application/json");
  if (!body.empty() || method == "PATCH" || method == "POST" || method == "PUT") {
    request.headers.emplace_back("Content-Type", content_type);
  }
  return request;
}

core::Result<http::Response> Client::Send(const std::string& method, const std::string& path, const std::string& body,
                                          const std::string& content_type) {
  auto request = Build(method, path, body, content_type);
  if (!request) return core::Fail(request.error());
  return transport_.Send(*request);
}

core::Result<nlohmann::json> Client::GetJson(const std::string& path, const std::string& what) {
  auto response = Send("GET", path);
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromStatus(response->status, response->body, what));
  auto json = core::ParseJson(response->body, "GET " + path + ": the API server's reply");
  if (!json) return core::Fail(core::Error::Internal(json.error().message));
  return json;
}

core::Result<http::Response> Client::StreamLines(const std::string& path, std::chrono::milliseconds timeout,
                                                 const std::function<bool(std::string_view)>& on_line) {
  auto request = Build("GET", path, "", "");
  if (!request) return core::Fail(request.error());
  request->timeout = timeout;
  std::string pending;
  bool line_too_long = false;
  auto response = transport_.Stream(*request, [&](std::string_view chunk) {
    pending.append(chunk);
    size_t start = 0;
    for (size_t newline; (newline = pending.find('\n', start)) != std::string::npos; start = newline + 1) {
      std::string_view line(pending.data() + start, newline - start);
      if (!line.empty() && !on_line(line)) {
        pending.clear();
        return false;
      }
    }
    pending.erase(0, start);
    if (pending.size() > kMaxStreamedLineBytes) {
      line_too_long = true;  // one event larger than any object the API server stores
      return false;
    }
    return true;
  });
  if (!response) return response;
  if (line_too_long) {
    return core::Fail(core::Error::Make(core::ErrorKind::kResourceExhausted,
                                        "GET " + path + ": a streamed line is longer than " +
                                            std::to_string(kMaxStreamedLineBytes / core::kMiB) + " MiB"));
  }
  // A non-2xx reply to a watch (410, 403) is a single JSON Status, returned in the body.
  if (!response->ok() && response->body.empty()) response->body = pending;
  return response;
}

core::Result<http::Response> Client::StreamChunks(const std::string& path, std::chrono::milliseconds timeout,
                                                  const core::CancelToken* cancel, const http::ChunkHandler& on_chunk) {
  auto request = Build("GET", path, "", "");
  if (!request) return core::Fail(request.error());
  // A log is text/plain; errors still come as a JSON Status. kubectl sends the same.
  request->headers = {{"Accept", "application/json, */*"}};
  request->timeout = timeout;
  request->cancel = cancel;
  return transport_.Stream(*request, on_chunk);
}

}  // namespace tputrain::k8s
