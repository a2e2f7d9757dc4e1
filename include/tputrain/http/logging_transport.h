#pragma once

#include <mutex>
#include <ostream>

#include "tputrain/core/clock.h"
#include "tputrain/core/redact.h"
#include "tputrain/http/transport.h"
#include "tputrain/http/websocket.h"

namespace tputrain::http {

// --verbose: one line per call, "http: GET <url> -> 200 (12 ms)"; --log-http adds the request
// headers and body and the response body. Everything written passes through `redactor`.
// Where it sits decides what is seen: the Google stack puts it innermost, over curl, so that
// every attempt and every token exchange is logged.
class LoggingTransport final : public Transport {
 public:
  LoggingTransport(Transport& inner, std::ostream& sink, core::Clock& clock, bool log_bodies,
                   const core::Redactor& redactor);

  core::Result<Response> Send(const Request& request) override;
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override;

 private:
  core::Result<Response> Log(const Request& request, const core::Result<Response>& result, core::Clock::TimePoint start,
                             bool streamed);

  Transport& inner_;
  std::ostream& sink_;
  core::Clock& clock_;
  bool log_bodies_;
  const core::Redactor& redactor_;
  std::mutex mutex_;
};

// The same one line for WebSocket upgrades ("ws: GET <url> -> 101 (8 ms)"), and the request
// headers with --log-http, redacted; frames are not logged (they are the log text itself).
class LoggingWebSocketConnector final : public WebSocketConnector {
 public:
  LoggingWebSocketConnector(WebSocketConnector& inner, std::ostream& sink, core::Clock& clock, bool log_headers,
                            const core::Redactor& redactor);

  core::Result<std::unique_ptr<WebSocketConnection>> Connect(const std::string& url, const Headers& headers) override;

 private:
  WebSocketConnector& inner_;
  std::ostream& sink_;
  core::Clock& clock_;
  bool log_headers_;
  const core::Redactor& redactor_;
  std::mutex mutex_;
};

}  // namespace tputrain::http
