// TunnelSession against scripted WebSocket connections: what it sends, when it acknowledges, and
// what it resends after the relay asks for a reconnect. The real relay and gcloud are in
// tunnel_integration_test.cc.
#include "tputrain/gcp/iap/tunnel_session.h"

#include <deque>

#include <catch2/catch.hpp>

#include "tputrain/gcp/iap/tunnel_protocol.h"

namespace tputrain::gcp::iap {
namespace {

using Message = http::WebSocketMessage;

Message Binary(std::string data) { return Message{Message::Type::kBinary, std::move(data), 0}; }
Message CloseWith(int code) { return Message{Message::Type::kClose, "", code}; }

// One scripted connection: the messages the relay sends, and what the session sent it.
struct Script {
  std::deque<Message> inbox;
  std::vector<std::string> sent;
  int closed_with = 0;
};

class ScriptedConnection final : public http::WebSocketConnection {
 public:
  explicit ScriptedConnection(Script& script) : script_(script) {}
  core::Result<std::optional<Message>> Receive(std::chrono::milliseconds) override {
    if (script_.inbox.empty()) return std::optional<Message>();
    auto message = std::move(script_.inbox.front());
    script_.inbox.pop_front();
    return std::optional<Message>(std::move(message));
  }
  core::Status SendText(std::string_view) override { return core::Fail(core::Error::Internal("text")); }
  core::Status SendBinary(std::string_view bytes) override {
    script_.sent.emplace_back(bytes);
    return {};
  }
  void Interrupt() override {}
  void Close(int code) override { script_.closed_with = code; }

 private:
  Script& script_;
};

class ScriptedConnector final : public http::WebSocketConnector {
 public:
  std::deque<Script> scripts;
  std::vector<std::string> urls;
  std::vector<http::Headers> headers;
  int refuse_status = 0;

  core::Result<std::unique_ptr<http::WebSocketConnection>> Connect(const std::string& url,
                                                                   const http::Headers& sent_headers) override {
    urls.push_back(url);
    headers.push_back(sent_headers);
    if (refuse_status != 0) {
      auto error = core::Error::Make(core::KindFromHttpStatus(refuse_status), "no");
      error.http_status = refuse_status;
      return core::Fail(error);
    }
    REQUIRE(urls.size() <= scripts.size());
    return std::unique_ptr<http::WebSocketConnection>(std::make_unique<ScriptedConnection>(scripts[urls.size() - 1]));
  }
};

class CountingCredential final : public http::Credential {
 public:
  core::Result<http::Headers> AuthHeaders() override { return http::Headers{}; }
  void Invalidate() override { ++invalidated; }
  int invalidated = 0;
};

const TunnelTarget kTarget{"p", "us-central2-b", "worker-0", 8265, "nic0"};

std::string DataOf(const std::string& frame) {
  auto decoded = DecodeFrame(frame);
  REQUIRE(decoded);
  REQUIRE(decoded->tag == FrameTag::kData);
  return decoded->bytes;
}

std::string AllData(const std::vector<std::string>& frames) {
  std::string bytes;
  for (const auto& frame : frames) bytes += DataOf(frame);
  return bytes;
}

std::string Bytes(size_t n, char seed) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(seed + static_cast<char>(i % 97));
  return bytes;
}

std::unique_ptr<TunnelSession> OpenWith(ScriptedConnector& connector, TunnelOptions options = {}) {
  auto session = TunnelSession::Open(connector, kTarget, std::move(options));
  REQUIRE(session);
  return std::move(*session);
}

}  // namespace

TEST_CASE("a session opens with gcloud's headers and waits for CONNECT_SUCCESS_SID") {
  ScriptedConnector connector;
  connector.scripts.push_back({{Binary(EncodeConnectSuccessSid("sid-1"))}, {}, 0});
  auto session = OpenWith(connector);
  CHECK(session->sid() == "sid-1");
  REQUIRE(connector.urls.size() == 1);
  CHECK(connector.urls[0].starts_with("wss://tunnel.cloudproxy.app/v4/connect?project=p&port=8265&"));
  CHECK(http::FindHeader(connector.headers[0], "Origin") == "bot:iap-tunneler");
  CHECK(http::FindHeader(connector.headers[0], "Sec-WebSocket-Protocol") == "relay.tunnel.cloudproxy.app");
  CHECK_FALSE(http::FindHeader(connector.headers[0], "Authorization"));  // the credential decorator's job
}

TEST_CASE("DATA before CONNECT_SUCCESS_SID, or no answer at all, fails the open") {
  ScriptedConnector early;
  early.scripts.push_back({{Binary(EncodeData("x"))}, {}, 0});
  auto refused = TunnelSession::Open(early, kTarget, {});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("DATA before CONNECT_SUCCESS_SID") != std::string::npos);

  ScriptedConnector silent;
  silent.scripts.push_back({});
  TunnelOptions options;
  options.handshake_timeout = std::chrono::milliseconds(0);
  auto timed_out = TunnelSession::Open(silent, kTarget, options);
  REQUIRE_FALSE(timed_out);
  CHECK(timed_out.error().kind == core::ErrorKind::kDeadlineExceeded);
}

TEST_CASE("sends are cut into DATA frames of at most 16384 bytes") {
  ScriptedConnector connector;
  connector.scripts.push_back({{Binary(EncodeConnectSuccessSid("s"))}, {}, 0});
  auto session = OpenWith(connector);
  std::string bytes = Bytes(40'000, 'a');
  REQUIRE(session->Send(bytes));
  const auto& sent = connector.scripts[0].sent;
  REQUIRE(sent.size() == 3);
  CHECK(DataOf(sent[0]).size() == 16384);
  CHECK(DataOf(sent[1]).size() == 16384);
  CHECK(DataOf(sent[2]).size() == 40'000 - 2 * 16384);
  CHECK(AllData(sent) == bytes);
  CHECK(session->unacked_bytes() == 40'000);
}

TEST_CASE("an ACK that frees sent data returns Receive at once, so held-back data goes out without waiting") {
  ScriptedConnector connector;
  connector.scripts.push_back(
      {{Binary(EncodeConnectSuccessSid("s")), Binary(EncodeAck(4)), Binary(EncodeData("late"))}, {}, 0});
  auto session = OpenWith(connector);
  REQUIRE(session->Send("0123456789"));
  auto freed = session->Receive(std::chrono::minutes(1));
  REQUIRE(freed);
  CHECK(freed->bytes.empty());
  CHECK_FALSE(freed->ended);
  CHECK(session->unacked_bytes() == 6);
  auto data = session->Receive(std::chrono::minutes(1));
  REQUIRE(data);
  CHECK(data->bytes == "late");
}

TEST_CASE("received DATA is acknowledged once more than 2 x 16384 bytes came in; the relay's ACKs free sent data") {
  ScriptedConnector connector;
  std::string chunk = Bytes(16384, 'k');
  connector.scripts.push_back({{Binary(EncodeConnectSuccessSid("s")), Binary(EncodeData(chunk)),
                                Binary(EncodeData(chunk)), Binary(EncodeData(chunk)), Binary(EncodeAck(5))},
                               {},
                               0});
  auto session = OpenWith(connector);
  REQUIRE(session->Send("0123456789"));
  auto& sent = connector.scripts[0].sent;
  sent.clear();
  for (int i = 0; i < 2; ++i) {
    auto received = session->Receive(std::chrono::milliseconds(0));
    REQUIRE(received);
    CHECK(received->bytes == chunk);
  }
  CHECK(sent.empty());  // 32768 is not more than 2 x 16384
  auto third = session->Receive(std::chrono::milliseconds(0));
  REQUIRE(third);
  REQUIRE(sent.size() == 1);
  auto ack = DecodeFrame(sent[0]);
  REQUIRE(ack);
  CHECK(ack->tag == FrameTag::kAck);
  CHECK(ack->count == 3 * 16384);
  auto quiet = session->Receive(std::chrono::milliseconds(0));  // takes the relay's ACK(5)
  REQUIRE(quiet);
  CHECK(quiet->bytes.empty());
  CHECK_FALSE(quiet->ended);
  CHECK(session->unacked_bytes() == 5);
}

TEST_CASE("close 4004: reconnect with a fresh token and the bytes received, then resend what the relay lacks") {
  ScriptedConnector connector;
  CountingCredential credential;
  connector.scripts.push_back(
      {{Binary(EncodeConnectSuccessSid("sid/7")), Binary(EncodeData("hello")), Binary(EncodeAck(10'000))}, {}, 0});
  TunnelOptions options;
  options.credential = &credential;
  auto session = OpenWith(connector, options);
  std::string upload = Bytes(30'000, 'u');
  REQUIRE(session->Send(upload));
  auto hello = session->Receive(std::chrono::milliseconds(0));
  REQUIRE(hello);
  CHECK(hello->bytes == "hello");
  REQUIRE(session->Receive(std::chrono::milliseconds(0)));  // ACK(10000)
  connector.scripts[0].inbox.push_back(CloseWith(4004));
  connector.scripts.push_back(
      {{Binary(EncodeReconnectSuccessAck(20'000)), Binary(EncodeData("after")), CloseWith(1000)}, {}, 0});

  auto after = session->Receive(std::chrono::milliseconds(0));
  REQUIRE(after);
  CHECK(after->bytes == "after");
  CHECK(credential.invalidated == 1);
  CHECK(session->reconnects() == 1);
  REQUIRE(connector.urls.size() == 2);
  CHECK(connector.urls[1] ==
        "wss://tunnel.cloudproxy.app/v4/reconnect?sid=sid%2F7&ack=5&newWebsocket=True&zone=us-central2-b");
  CHECK(AllData(connector.scripts[1].sent) == upload.substr(20'000));
  CHECK(session->unacked_bytes() == 10'000);
  auto end = session->Receive(std::chrono::milliseconds(0));
  REQUIRE(end);
  CHECK(end->ended);
}

TEST_CASE("4004 again and again with nothing moving gives up; other closes are errors that say so") {
  ScriptedConnector connector;
  connector.scripts.push_back({{Binary(EncodeConnectSuccessSid("s")), CloseWith(4004)}, {}, 0});
  for (int i = 0; i < 3; ++i)
    connector.scripts.push_back({{Binary(EncodeReconnectSuccessAck(0)), CloseWith(4004)}, {}, 0});
  auto session = OpenWith(connector);
  auto gave_up = session->Receive(std::chrono::milliseconds(0));
  REQUIRE_FALSE(gave_up);
  CHECK(gave_up.error().message.find("reauthenticate 4 times in a row") != std::string::npos);

  ScriptedConnector other;
  other.scripts.push_back({{Binary(EncodeConnectSuccessSid("s")), CloseWith(4010)}, {}, 0});
  auto closed = OpenWith(other)->Receive(std::chrono::milliseconds(0));
  REQUIRE_FALSE(closed);
  CHECK(closed.error().message.find("closed the session with code 4010") != std::string::npos);
}

TEST_CASE("an ACK for more than was sent is a protocol error") {
  ScriptedConnector connector;
  connector.scripts.push_back({{Binary(EncodeConnectSuccessSid("s")), Binary(EncodeAck(11))}, {}, 0});
  auto session = OpenWith(connector);
  REQUIRE(session->Send("ten bytes!"));
  auto received = session->Receive(std::chrono::milliseconds(0));
  REQUIRE_FALSE(received);
  CHECK(received.error().message.find("acknowledged 11 bytes") != std::string::npos);
}

TEST_CASE("an upgrade refused with 401 or 403 names roles/iap.tunnelResourceAccessor") {
  for (int status : {401, 403}) {
    ScriptedConnector connector;
    connector.refuse_status = status;
    auto refused = TunnelSession::Open(connector, kTarget, {});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().kind == core::ErrorKind::kPermissionDenied);
    CHECK(refused.error().message.find("roles/iap.tunnelResourceAccessor") != std::string::npos);
    CHECK(refused.error().message.find("port 8265 of instance worker-0") != std::string::npos);
  }
}

}  // namespace tputrain::gcp::iap
