#include "iap_relay_pump.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "iap_relay_protocol.h"
#include "websocket_server.h"

namespace tputrain::emulator {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxMessage = 1 << 20;
// Back-pressure: the instance is read only while less than this waits for the client (or its
// acknowledgement), and the client only while less than this waits for the instance.
constexpr size_t kMaxQueuedToClient = 1 << 20;
constexpr size_t kMaxUnacknowledged = 8 << 20;
constexpr size_t kMaxQueuedToTarget = 1 << 20;
constexpr std::chrono::seconds kCloseReplyWait{2};
constexpr int kPollMs = 100;

enum class Ending { kNone, kSessionOver, kResumable };

class Pump {
 public:
  Pump(TlsStream& tls, std::string& from_client, std::string to_client, IapRelaySession* session,
       const IapRelayContext* context)
      : tls_(tls), from_client_(from_client), to_client_(std::move(to_client)), session_(session), context_(context) {
    if (context_ != nullptr) generation_ = context_->reauthentications->load();
  }

  // Runs until the WebSocket ends; how the session should go on.
  Ending Run() {
    while (true) {
      CheckRequests();
      if (closing_) {
        bool replied = to_client_.empty() && close_reply_;
        if (replied || SteadyClock::now() - close_sent_at_ > kCloseReplyWait) break;
      }
      if (!Wait()) break;
    }
    return ending_ == Ending::kNone ? Ending::kResumable : ending_;
  }

  void Close(int code, const std::string& reason, Ending ending) {
    if (closing_) return;
    to_client_ += EncodeCloseFrame(code, reason);
    closing_ = true;
    close_sent_at_ = SteadyClock::now();
    ending_ = ending;
  }

 private:
  bool HasSession() const { return session_ != nullptr; }

  void CheckRequests() {
    if (context_ == nullptr || closing_) return;
    if (context_->stopping->load()) {
      Close(1001, "the emulator is stopping", Ending::kSessionOver);
    } else if (HasSession() && context_->reauthentications->load() != generation_) {
      Close(kIapCloseReauthenticate, "reauthentication required", Ending::kResumable);
    }
  }

  bool ReadTarget() const {
    return HasSession() && !closing_ && !session_->target_ended && to_client_.size() < kMaxQueuedToClient &&
           session_->to_client_unacked.size() < kMaxUnacknowledged;
  }

  // One round: poll, then read and write what is ready. False when the TLS connection is gone.
  bool Wait() {
    const bool read_client = !HasSession() || session_->to_target.size() < kMaxQueuedToTarget || closing_;
    pollfd fds[2] = {{tls_.fd(), 0, 0}, {HasSession() ? session_->target_fd : -1, 0, 0}};
    if (read_client) fds[0].events |= POLLIN;
    if (!to_client_.empty() || tls_.WantsWrite()) fds[0].events |= POLLOUT;
    if (ReadTarget()) fds[1].events |= POLLIN;
    if (HasSession() && !session_->to_target.empty()) fds[1].events |= POLLOUT;
    if (!(read_client && tls_.HasBuffered())) poll(fds, 2, kPollMs);

    if (read_client && (tls_.HasBuffered() || (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))) {
      if (tls_.ReadAvailable(from_client_) == TlsStream::Read::kEnd) return false;
      TakeMessages();
    }
    if (ReadTarget() && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) ReadFromTarget();
    if (HasSession() && !session_->to_target.empty()) WriteToTarget();
    return tls_.Flush(to_client_);
  }

  void TakeMessages() {
    while (true) {
      auto frame = TakeClientFrame(from_client_, kMaxMessage);
      if (!frame) {
        Close(1002, frame.error().message, Ending::kSessionOver);
        from_client_.clear();
        return;
      }
      if (!frame->has_value()) return;
      OnFrame(**frame);
    }
  }

  void OnFrame(WebSocketFrame& frame) {
    switch (frame.opcode) {
      case kWsPing:
        to_client_ += EncodeServerFrame(kWsPong, frame.payload);
        return;
      case kWsPong:
        return;
      case kWsClose:
        if (!closing_) {
          int code = CloseCode(frame.payload);
          Close(code == 1005 ? 1000 : code, "", Ending::kSessionOver);
        }
        close_reply_ = true;
        return;
      case kWsContinuation:
        message_ += frame.payload;
        break;
      default:
        message_opcode_ = frame.opcode;
        message_ = std::move(frame.payload);
    }
    if (message_.size() > kMaxMessage) {
      Close(1009, "message too big", Ending::kSessionOver);
    } else if (frame.fin) {
      OnMessage();
      message_.clear();
    }
  }

  void OnMessage() {
    if (closing_) return;  // after a 4004 whatever follows is lost in flight; the client resends it
    if (!HasSession() || message_opcode_ != kWsBinary) {
      Close(1003, "expected binary tunnel frames", Ending::kSessionOver);
      return;
    }
    auto frame = DecodeIapClientFrame(message_);
    if (!frame) {
      Close(1002, frame.error().message, Ending::kSessionOver);
      return;
    }
    if (frame->tag == IapTag::kData) {
      session_->to_target += frame->data;
      session_->from_client += frame->data.size();
      if (session_->from_client - session_->from_client_acked > kIapAckThreshold) {
        session_->from_client_acked = session_->from_client;
        to_client_ += EncodeServerFrame(kWsBinary, EncodeIapCount(IapTag::kAck, session_->from_client));
      }
      return;
    }
    uint64_t sent = session_->to_client_acked + session_->to_client_unacked.size();
    if (frame->ack < session_->to_client_acked || frame->ack > sent) {
      Close(1002, "ACK outside what was sent", Ending::kSessionOver);
      return;
    }
    session_->to_client_unacked.erase(0, frame->ack - session_->to_client_acked);
    session_->to_client_acked = frame->ack;
  }

  void ReadFromTarget() {
    char buffer[kIapMaxData];
    ssize_t n = recv(session_->target_fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      std::string_view data(buffer, static_cast<size_t>(n));
      session_->to_client_unacked.append(data);
      to_client_ += EncodeServerFrame(kWsBinary, EncodeIapData(data));
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      session_->target_ended = true;
      Close(1000, "", Ending::kSessionOver);
    }
  }

  void WriteToTarget() {
    ssize_t n = send(session_->target_fd, session_->to_target.data(), session_->to_target.size(), MSG_NOSIGNAL);
    if (n > 0) {
      session_->to_target.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      session_->target_ended = true;
      session_->to_target.clear();
      Close(1000, "", Ending::kSessionOver);
    }
  }

  TlsStream& tls_;
  std::string& from_client_;
  std::string to_client_;
  IapRelaySession* session_;
  const IapRelayContext* context_;
  uint64_t generation_ = 0;
  std::string message_;
  uint8_t message_opcode_ = kWsBinary;
  bool closing_ = false;
  bool close_reply_ = false;
  SteadyClock::time_point close_sent_at_;
  Ending ending_ = Ending::kNone;
};

}  // namespace

void RunSession(TlsStream& tls, std::string& from_client, std::string to_client,
                const std::shared_ptr<IapRelaySession>& session, const IapRelayContext& context) {
  Pump pump(tls, from_client, std::move(to_client), session.get(), &context);
  if (pump.Run() == Ending::kResumable) {
    context.sessions->Detach(session);
  } else {
    context.sessions->End(session);
  }
}

void RunResumedSession(TlsStream& tls, std::string& from_client, uint64_t client_received,
                       const std::shared_ptr<IapRelaySession>& session, const IapRelayContext& context) {
  uint64_t sent = session->to_client_acked + session->to_client_unacked.size();
  if (client_received < session->to_client_acked || client_received > sent) {
    CloseWebSocket(tls, from_client, 1002, "ack outside what was sent");
    context.sessions->End(session);
    return;
  }
  session->to_client_unacked.erase(0, client_received - session->to_client_acked);
  session->to_client_acked = client_received;
  std::string to_client =
      EncodeServerFrame(kWsBinary, EncodeIapCount(IapTag::kReconnectSuccessAck, session->from_client));
  std::string_view unacked = session->to_client_unacked;
  for (size_t start = 0; start < unacked.size(); start += kIapMaxData) {
    to_client += EncodeServerFrame(kWsBinary, EncodeIapData(unacked.substr(start, kIapMaxData)));
  }
  Pump pump(tls, from_client, std::move(to_client), session.get(), &context);
  if (session->target_ended) pump.Close(1000, "", Ending::kSessionOver);
  if (pump.Run() == Ending::kResumable) {
    context.sessions->Detach(session);
  } else {
    context.sessions->End(session);
  }
}

void CloseWebSocket(TlsStream& tls, std::string& from_client, int code, const std::string& reason) {
  Pump pump(tls, from_client, "", nullptr, nullptr);
  pump.Close(code, reason, Ending::kSessionOver);
  pump.Run();
}

}  // namespace tputrain::emulator
