#include "tputrain/http/logging_transport.h"

#include <sstream>

#include "tputrain/core/redact.h"

namespace tputrain::http {

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
    if (!request.body.empty()) text << "http: request body:\n" << request.body << "\n";
    if (result) {
      text << "http: response headers:\n";
      for (const auto& [name, value] : result->headers) text << "  " << name << ": " << value << "\n";
      if (streamed) {
        text << "http: response body streamed to its reader\n";
      } else if (!result->body.empty()) {
        text << "http: response body:\n" << result->body << "\n";
      }
    }
  }
  std::lock_guard lock(mutex_);
  sink_ << redactor_(text.str()) << std::flush;
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
