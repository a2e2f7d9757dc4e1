#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

namespace tputrain::http {

struct WebSocketMessage {
  enum class Type { kText, kBinary, kClose };
  Type type = Type::kText;
  std::string data;
  // for kClose: the code the server's close frame gave (1000 normal; an application's own, such
  // as IAP's 4003 and 4004), 1005 when it gave none, 1006 when the peer vanished without a close
  int close_code = 0;
};

// One client connection (RFC 6455). Not thread-safe, except Interrupt().
class WebSocketConnection {
 public:
  virtual ~WebSocketConnection() = default;
  // The next complete message; std::nullopt when none arrived within `wait` (so callers can
  // check for Ctrl-C). Pings are answered inside. After a kClose, the connection is finished.
  virtual core::Result<std::optional<WebSocketMessage>> Receive(std::chrono::milliseconds wait) = 0;
  virtual core::Status SendText(std::string_view text) = 0;
  virtual core::Status SendBinary(std::string_view bytes) = 0;
  // May be called from any thread: the Receive in progress, or the next one, returns
  // std::nullopt at once. So one thread can own the connection and still be woken for data to
  // send that another thread read.
  virtual void Interrupt() = 0;
  // Sends a close frame (best effort) and shuts the connection.
  virtual void Close(int code = 1000) = 0;
};

class WebSocketConnector {
 public:
  virtual ~WebSocketConnector() = default;
  // `url` is ws://, wss://, http:// or https:// (the scheme picks TLS). A non-101 reply is an
  // Error whose http_status and message carry the server's status and (text) body.
  virtual core::Result<std::unique_ptr<WebSocketConnection>> Connect(const std::string& url,
                                                                     const Headers& headers) = 0;
};

struct WebSocketOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::string user_agent;  // default "tputrain/<version>"
  std::string ca_bundle;
  std::string ca_pem;  // a cluster's own CA (PEM), as CurlOptions::ca_pem: only it is trusted
};

// libwslay framing over a libcurl CURLOPT_CONNECT_ONLY connection, so that TLS verification,
// proxies and the loopback-only rule for plain http are curl's and CurlTransport's.
class CurlWebSocketConnector final : public WebSocketConnector {
 public:
  explicit CurlWebSocketConnector(WebSocketOptions options = {});
  core::Result<std::unique_ptr<WebSocketConnection>> Connect(const std::string& url, const Headers& headers) override;

 private:
  WebSocketOptions options_;
};

}  // namespace tputrain::http
