#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"

namespace tputrain::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive header lookup (HTTP field names are case-insensitive).
std::optional<std::string> FindHeader(const Headers& headers, std::string_view name);

struct Request {
  std::string method = "GET";
  std::string url;
  Headers headers;
  std::string body;
  // Safe to send twice. Creates (POST) are not: a failed create is resolved by reading back.
  bool idempotent = true;
  // 0 means the transport's default.
  std::chrono::milliseconds timeout{0};
  // The server is asked not to persist anything (Kubernetes dryRun=All): --dry-run may send it.
  bool server_dry_run = false;
  // A POST that only reads (tpu nodes.getGuestAttributes): --dry-run sends it as it sends a GET.
  bool reads_only = false;
  // When set, a cancelled token ends the transfer within about a second, even while a streamed
  // reply is silent (a followed log), and the call fails with kCancelled.
  const core::CancelToken* cancel = nullptr;
  // The most of a reply's body kept whole (an error reply's, when streaming); 0 means the
  // transport's default. A longer reply fails the call (kResourceExhausted) instead of filling
  // memory: raise it only for what may really be that large (a whole object, a job's log).
  size_t max_response_bytes = 0;
};

struct Response {
  int status = 0;
  Headers headers;
  std::string body;

  std::optional<std::string> Header(std::string_view name) const { return FindHeader(headers, name); }
  bool ok() const { return status >= 200 && status < 300; }
};

// Receives a streamed body chunk by chunk; returning false stops the transfer.
using ChunkHandler = std::function<bool(std::string_view chunk)>;

// The one HTTP interface. A 4xx/5xx reply is a successful Send: the caller maps it to an
// Error (gcp::ErrorFromHttp, k8s and ray have their own). Send fails only when no HTTP reply
// arrived (connection refused, timeout, TLS failure) or the request was refused locally.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual core::Result<Response> Send(const Request& request) = 0;

  // For long responses (watches, log streams): a 2xx body goes to `on_chunk` as it arrives and
  // the returned Response has an empty body; an error reply's body is returned in Response.body
  // and never reaches `on_chunk`. The default buffers, which is right for fakes.
  virtual core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk);
};

// True for 127.0.0.0/8, ::1 and "localhost": the only hosts plain http may reach.
bool IsLoopbackHost(std::string_view host);

struct UrlParts {
  std::string scheme;
  std::string host;
  int port = 0;  // 0 when the URL gives none.
  std::string path_and_query;
};
core::Result<UrlParts> ParseUrl(std::string_view url);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(std::string_view text);

// `text` as exactly one URL path segment: UrlEncode, and "." or ".." (unreserved, so UrlEncode
// leaves them) spelled %2E, so no name can be a dot segment that a server resolves to its parent.
std::string PathSegment(std::string_view text);

}  // namespace tputrain::http
