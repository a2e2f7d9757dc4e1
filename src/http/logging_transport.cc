#include "tputrain/http/logging_transport.h"

#include <sstream>

#include "tputrain/core/redact.h"
#include "tputrain/core/text.h"
#include "tputrain/core/utf8.h"

namespace tputrain::http {
namespace {

// A body is printed when it is text, redacted whole and then cut at this size; an archive, an
// image or a 60 MB upload is one line with its size.
constexpr size_t kMaxShownBody = 64 * 1024;

// UTF-8 without NUL bytes: an archive or an image is neither. A control character in text is
// escaped when printed (PrintableText), not a reason to hide the text.
bool IsText(std::string_view body) { return body.find('\0') == std::string_view::npos && core::IsValidUtf8(body); }

std::string ContentType(const Headers& headers) { return FindHeader(headers, "Content-Type").value_or("no type"); }

// "http: request body:\n<text>\n", or one line saying what it was.
std::string ShownBody(const char* which, const std::string& body, const Headers& headers,
                      const core::Redactor& redactor) {
  const std::string size = std::to_string(body.size()) + " bytes";
  if (!IsText(body))
    return "http: " + std::string(which) + " body: " + size + " of " + ContentType(headers) + ", not shown\n";
  if (body.size() <= kMaxShownBody) return "http: " + std::string(which) + " body:\n" + body + "\n";
  // Redacted before it is cut, so that a secret cut in two is still found whole.
  std::string shown = redactor(body);
  if (shown.size() > kMaxShownBody) shown.resize(kMaxShownBody);
  return "http: " + std::string(which) + " body (the first " + std::to_string(kMaxShownBody / 1024) + " KiB of " +
         size + "):\n" + shown + "\n";
}

}  // namespace

LoggingTransport::LoggingTransport(Transport& inner, std::ostream& sink, core::Clock& clock, bool log_bodies,
                                   const core::Redactor& redactor)
    : inner_(inner), sink_(sink), clock_(clock), log_bodies_(log_bodies), redactor_(redactor) {}

core::Result<Response> LoggingTransport::Send(const Request& request) {
  auto start = clock_.Now();
  auto result = inner_.Send(request);
  return Log(request, result, start, false);
}

core::Result<Response> LoggingTransport::Stream(const Request& request, const ChunkHandler& on_chunk) {
  auto start = clock_.Now();
  auto result = inner_.Stream(request, on_chunk);
  return Log(request, result, start, true);
}

core::Result<Response> LoggingTransport::Log(const Request& request, const core::Result<Response>& result,
                                             core::Clock::TimePoint start, bool streamed) {
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now() - start).count();
  // Built whole, then written under the lock, so that parallel calls never interleave lines.
  std::ostringstream text;
  text << "http: " << request.method << " " << request.url << " -> ";
  if (result) {
    text << result->status;
  } else {
    text << "failed (" << result.error().message << ")";
  }
  text << " (" << elapsed << " ms)\n";
  if (log_bodies_) {
    text << "http: request headers:\n";
    for (const auto& [name, value] : request.headers) text << "  " << name << ": " << value << "\n";
    if (!request.body.empty()) text << ShownBody("request", request.body, request.headers, redactor_);
    if (result) {
      text << "http: response headers:\n";
      for (const auto& [name, value] : result->headers) text << "  " << name << ": " << value << "\n";
      if (streamed) {
        text << "http: response body streamed to its reader\n";
      } else if (!result->body.empty()) {
        text << ShownBody("response", result->body, result->headers, redactor_);
      }
    }
  }
  std::lock_guard lock(mutex_);
  sink_ << core::PrintableText(redactor_(text.str()), core::Newlines::kKeep) << std::flush;
  return result;
}

LoggingWebSocketConnector::LoggingWebSocketConnector(WebSocketConnector& inner, std::ostream& sink, core::Clock& clock,
                                                     bool log_headers, const core::Redactor& redactor)
    : inner_(inner), sink_(sink), clock_(clock), log_headers_(log_headers), redactor_(redactor) {}

core::Result<std::unique_ptr<WebSocketConnection>> LoggingWebSocketConnector::Connect(const std::string& url,
                                                                                      const Headers& headers) {
  auto start = clock_.Now();
  auto connection = inner_.Connect(url, headers);
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now() - start).count();
  std::ostringstream text;
  text << "ws: GET " << url << " -> ";
  if (connection) {
    text << "101";
  } else if (connection.error().http_status != 0) {
    text << connection.error().http_status;
  } else {
    text << "failed (" << connection.error().message << ")";
  }
  text << " (" << elapsed << " ms)\n";
  if (log_headers_) {
    text << "ws: request headers:\n";
    for (const auto& [name, value] : headers) text << "  " << name << ": " << value << "\n";
  }
  std::lock_guard lock(mutex_);
  sink_ << redactor_(text.str()) << std::flush;
  return connection;
}

}  // namespace tputrain::http
