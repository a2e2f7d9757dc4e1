#include "tputrain/gcp/iap/tunnel_session.h"

#include <algorithm>
#include <utility>

namespace tputrain::gcp::iap {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCloseNormal = 1000;
constexpr int kCloseNoStatus = 1005;
constexpr int kCloseLost = 1006;
constexpr int kCloseCannotConnect = 4003;   // the relay could not reach the port
constexpr int kCloseReauthenticate = 4004;  // the token expires: resume on a new connection

core::Error TunnelError(core::ErrorKind kind, std::string message) {
  auto error = core::Error::Make(kind, std::move(message));
  error.where = "iap-tunnel";
  return error;
}

std::chrono::milliseconds Left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

std::string Describe(const TunnelTarget& target) {
  return "port " + std::to_string(target.port) + " of instance " + target.instance + " (zone " + target.zone +
         ", project " + target.project + ")";
}

}  // namespace

core::Result<std::unique_ptr<TunnelSession>> TunnelSession::Open(http::WebSocketConnector& connector,
                                                                 const TunnelTarget& target, TunnelOptions options) {
  std::unique_ptr<TunnelSession> session(new TunnelSession(connector, target, std::move(options)));
  if (auto connected = session->Connect(); !connected) return core::Fail(connected.error());
  return session;
}

TunnelSession::~TunnelSession() { Close(); }

core::Result<std::unique_ptr<http::WebSocketConnection>> TunnelSession::Upgrade(const std::string& url) {
  // The token comes from the connector's credential decorator, so it is never in these headers
  // and never in a log line.
  http::Headers headers = {{"Origin", "bot:iap-tunneler"}, {"Sec-WebSocket-Protocol", "relay.tunnel.cloudproxy.app"}};
  auto connection = connector_.Connect(url, headers);
  if (connection) return connection;
  const auto& error = connection.error();
  if (error.http_status == 401 || error.http_status == 403) {
    auto denied = TunnelError(
        core::ErrorKind::kPermissionDenied,
        "IAP refused the tunnel to " + Describe(target_) + " (HTTP " + std::to_string(error.http_status) +
            (error.message.empty() ? "" : ": " + error.message) +
            "): the account needs roles/iap.tunnelResourceAccessor on the project or the instance, e.g. gcloud "
            "projects add-iam-policy-binding " +
            target_.project + " --member=user:EMAIL --role=roles/iap.tunnelResourceAccessor");
    denied.http_status = error.http_status;
    return core::Fail(denied);
  }
  auto failed = error;
  failed.message = "IAP tunnel to " + Describe(target_) + ": " + error.message;
  return core::Fail(failed);
}

core::Error TunnelSession::ClosedError(int close_code) const {
  if (close_code == kCloseCannotConnect) {
    std::string port = std::to_string(target_.port);
    return TunnelError(
        core::ErrorKind::kFailedPrecondition,
        "IAP could not connect to " + Describe(target_) +
            " (close code 4003): nothing listens on that port, or no firewall rule lets IAP's range "
            "35.235.240.0/20 reach it (cloud.google.com/iap/docs/tcp-by-host). To allow it: gcloud compute "
            "firewall-rules create allow-iap-tcp-" +
            port + " --project " + target_.project +
            " --network NETWORK --direction INGRESS --action allow --rules tcp:" + port +
            " --source-ranges 35.235.240.0/20");
  }
  if (close_code == kCloseLost) {
    return TunnelError(core::ErrorKind::kUnavailable,
                       "IAP tunnel to " + Describe(target_) + ": the connection to the relay was lost");
  }
  return TunnelError(
      core::ErrorKind::kUnavailable,
      "IAP tunnel to " + Describe(target_) + ": the relay closed the session with code " + std::to_string(close_code));
}

core::Result<Frame> TunnelSession::FirstFrame(http::WebSocketConnection& connection, FrameTag expected) {
  auto deadline = Clock::now() + options_.handshake_timeout;
  while (true) {
    auto message = connection.Receive(Left(deadline));
    if (!message) return core::Fail(message.error());
    if (!message->has_value()) {
      if (Left(deadline).count() > 0) continue;  // an Interrupt(): the handshake still needs its answer
      return core::Fail(TunnelError(core::ErrorKind::kDeadlineExceeded,
                                    "IAP tunnel to " + Describe(target_) + ": no " + std::string(FrameName(expected)) +
                                        " from the relay within " + std::to_string(options_.handshake_timeout.count()) +
                                        " ms"));
    }
    const auto& received = **message;
    if (received.type == http::WebSocketMessage::Type::kClose) return core::Fail(ClosedError(received.close_code));
    if (received.type != http::WebSocketMessage::Type::kBinary) {
      return core::Fail(TunnelError(core::ErrorKind::kInternal, "IAP tunnel: the relay sent a text message"));
    }
    auto frame = DecodeFrame(received.data);
    if (!frame) return core::Fail(frame.error());
    if (frame->tag != expected) {
      return core::Fail(TunnelError(core::ErrorKind::kInternal, "IAP tunnel: the relay sent " +
                                                                    std::string(FrameName(frame->tag)) + " before " +
                                                                    std::string(FrameName(expected))));
    }
    return frame;
  }
}

void TunnelSession::Replace(std::unique_ptr<http::WebSocketConnection> connection) {
  std::unique_ptr<http::WebSocketConnection> old;
  {
    std::lock_guard lock(connection_mutex_);
    old = std::exchange(connection_, std::move(connection));
  }
  broken_ = false;
}

core::Status TunnelSession::Connect() {
  auto connection = Upgrade(ConnectUrl(options_.base_url, target_));
  if (!connection) return core::Fail(connection.error());
  auto sid = FirstFrame(**connection, FrameTag::kConnectSuccessSid);
  if (!sid) return core::Fail(sid.error());
  sid_ = sid->bytes;
  Replace(std::move(*connection));
  return {};
}

core::Status TunnelSession::Reconnect() {
  if (++reconnects_in_a_row_ > options_.max_reconnects_in_a_row) {
    return core::Fail(TunnelError(core::ErrorKind::kUnavailable,
                                  "IAP tunnel to " + Describe(target_) + ": the relay asked to reauthenticate " +
                                      std::to_string(reconnects_in_a_row_) + " times in a row"));
  }
  if (options_.credential != nullptr) options_.credential->Invalidate();
  auto connection = Upgrade(ReconnectUrl(options_.base_url, sid_, received_.total(), target_.zone));
  if (!connection) return core::Fail(connection.error());
  auto had = FirstFrame(**connection, FrameTag::kReconnectSuccessAck);
  if (!had) return core::Fail(had.error());
  // What the relay had is acknowledged; the rest never reached it and goes again, in order.
  if (auto acked = unacked_.Acknowledge(had->count); !acked) return acked;
  Replace(std::move(*connection));
  ++reconnects_;
  for (const auto& piece : unacked_.Pieces(kMaxDataPayload)) {
    if (auto sent = SendFrame(EncodeData(piece)); !sent) return sent;
  }
  return {};
}

core::Status TunnelSession::SendFrame(const std::string& frame) {
  if (broken_) return {};
  if (auto sent = connection_->SendBinary(frame); !sent) broken_ = true;
  return {};
}

core::Status TunnelSession::Send(std::string_view bytes) {
  if (closed_) return core::Fail(TunnelError(core::ErrorKind::kFailedPrecondition, "IAP tunnel: session closed"));
  while (!bytes.empty()) {
    auto piece = bytes.substr(0, kMaxDataPayload);
    bytes.remove_prefix(piece.size());
    unacked_.Append(piece);  // before sending: a send lost to a reconnect is resent from here
    if (auto sent = SendFrame(EncodeData(piece)); !sent) return sent;
  }
  return {};
}

core::Status TunnelSession::OnFrame(std::string_view message, Received& received) {
  auto frame = DecodeFrame(message);
  if (!frame) return core::Fail(frame.error());
  switch (frame->tag) {
    case FrameTag::kData:
      received_.Add(frame->bytes.size());
      received.bytes += frame->bytes;
      if (!frame->bytes.empty()) reconnects_in_a_row_ = 0;
      if (received_.AckDue()) return SendFrame(EncodeAck(received_.TakeAck()));
      return {};
    case FrameTag::kAck:
      if (frame->count > unacked_.acked()) reconnects_in_a_row_ = 0;
      return unacked_.Acknowledge(frame->count);
    default:
      return core::Fail(TunnelError(
          core::ErrorKind::kInternal,
          "IAP tunnel: the relay sent " + std::string(FrameName(frame->tag)) + " in the middle of the session"));
  }
}

core::Result<Received> TunnelSession::Receive(std::chrono::milliseconds wait) {
  if (closed_) return Received{"", true};
  auto deadline = Clock::now() + wait;
  Received received;
  while (received.bytes.empty()) {
    if (interrupted_.exchange(false)) break;
    auto message = connection_->Receive(Left(deadline));
    if (!message) return core::Fail(message.error());
    if (!message->has_value()) break;
    const auto& got = **message;
    if (got.type == http::WebSocketMessage::Type::kClose) {
      if (got.close_code == kCloseReauthenticate) {
        if (auto resumed = Reconnect(); !resumed) return core::Fail(resumed.error());
        continue;
      }
      if (got.close_code == kCloseNormal || got.close_code == kCloseNoStatus) {
        closed_ = true;
        return Received{"", true};
      }
      return core::Fail(ClosedError(got.close_code));
    }
    if (got.type != http::WebSocketMessage::Type::kBinary) {
      return core::Fail(TunnelError(core::ErrorKind::kInternal, "IAP tunnel: the relay sent a text message"));
    }
    const uint64_t unacked_before = unacked_.pending();
    if (auto handled = OnFrame(got.data, received); !handled) return core::Fail(handled.error());
    // An ACK that frees sent data returns at once: a caller holding data back for the unacked
    // limit sends it now, not when the next DATA or its wait's end comes (a minute's stall).
    if (unacked_.pending() < unacked_before) break;
  }
  return received;
}

void TunnelSession::Interrupt() {
  interrupted_ = true;
  std::lock_guard lock(connection_mutex_);
  if (connection_) connection_->Interrupt();
}

void TunnelSession::Close() {
  if (closed_) return;
  closed_ = true;
  if (connection_) connection_->Close(kCloseNormal);
}

}  // namespace tputrain::gcp::iap
