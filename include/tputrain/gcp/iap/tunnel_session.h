#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iap/tunnel_accounting.h"
#include "tputrain/gcp/iap/tunnel_protocol.h"
#include "tputrain/gcp/iap/tunnel_url.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/websocket.h"

namespace tputrain::gcp::iap {

struct TunnelOptions {
  std::string base_url = kDefaultTunnelUrl;  // TunnelBaseUrlFromEnv
  // Invalidated when the relay asks for reauthentication (close 4004), so the reconnect goes out
  // with a fresh token. The connector's CredentialWebSocketConnector adds the token itself.
  http::Credential* credential = nullptr;
  // How long the relay may take to send CONNECT_SUCCESS_SID or RECONNECT_SUCCESS_ACK.
  std::chrono::milliseconds handshake_timeout{30'000};
  // 4004s in a row, with no byte moving between them, before the session gives up.
  int max_reconnects_in_a_row = 3;
};

// What Receive gave: bytes from the instance's port, or the end of the stream (the relay closed
// the session normally). Neither when the wait ran out or Interrupt() was called.
struct Received {
  std::string bytes;
  bool ended = false;
};

// One TCP connection to a port of an instance through Google's IAP relay (protocol /v4): DATA
// both ways, ACKs as gcloud sends them, and resumption after the relay asks for a new token.
// One thread owns a session (Send, Receive, Close); Interrupt() may come from any other.
class TunnelSession {
 public:
  // Connects and waits for CONNECT_SUCCESS_SID. A refused upgrade (401/403) is kPermissionDenied
  // naming roles/iap.tunnelResourceAccessor; close 4003 is kFailedPrecondition naming the port and
  // the firewall range IAP connects from.
  static core::Result<std::unique_ptr<TunnelSession>> Open(http::WebSocketConnector& connector,
                                                           const TunnelTarget& target, TunnelOptions options);
  ~TunnelSession();

  // Sends `bytes` as DATA frames of at most 16384 bytes. They are kept until the relay acknowledges
  // them, so a send that fails because the relay is closing reaches it after the reconnect.
  core::Status Send(std::string_view bytes);
  // Waits up to `wait` for bytes; answers ACKs and reconnects on 4004 meanwhile.
  core::Result<Received> Receive(std::chrono::milliseconds wait);
  void Interrupt();
  void Close();

  const std::string& sid() const { return sid_; }
  uint64_t unacked_bytes() const { return unacked_.pending(); }
  int reconnects() const { return reconnects_; }

 private:
  TunnelSession(http::WebSocketConnector& connector, TunnelTarget target, TunnelOptions options)
      : connector_(connector), target_(std::move(target)), options_(std::move(options)) {}

  core::Status Connect();
  core::Status Reconnect();
  // The relay's first message on a new connection, which must be the frame `expected`.
  core::Result<Frame> FirstFrame(http::WebSocketConnection& connection, FrameTag expected);
  core::Result<std::unique_ptr<http::WebSocketConnection>> Upgrade(const std::string& url);
  core::Status SendFrame(const std::string& frame);
  core::Status OnFrame(std::string_view message, Received& received);
  core::Error ClosedError(int close_code) const;
  void Replace(std::unique_ptr<http::WebSocketConnection> connection);

  http::WebSocketConnector& connector_;
  TunnelTarget target_;
  TunnelOptions options_;
  std::string sid_;
  UnackedData unacked_;
  ReceivedData received_{2 * 16384};
  int reconnects_ = 0;
  int reconnects_in_a_row_ = 0;
  bool broken_ = false;  // a send failed: the next Receive learns why (4004 or gone)
  bool closed_ = false;
  std::atomic<bool> interrupted_{false};
  std::mutex connection_mutex_;  // guards connection_ against Interrupt() from another thread
  std::unique_ptr<http::WebSocketConnection> connection_;
};

}  // namespace tputrain::gcp::iap
