// The RFC 6455 client against a small server written here on raw sockets (not wslay), so the
// framing is checked against an independent reading of the RFC.
#include "tputrain/http/websocket.h"

#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "testing/raw_websocket.h"

namespace tputrain::http {
namespace {

using testing::EncodeFrame;
using testing::Frame;
using testing::OneShotServer;
using testing::ReadFrame;
using testing::ReadRequest;
using testing::SwitchingProtocols;
using testing::WriteAll;

std::optional<WebSocketMessage> Next(WebSocketConnection& connection) {
  auto message = connection.Receive(std::chrono::seconds(10));
  REQUIRE(message);
  return *message;
}

}  // namespace

TEST_CASE("upgrade, text frames (fragmented, 64-bit length), ping answered, normal close") {
  std::string request;
  std::optional<Frame> pong;
  std::optional<Frame> close_reply;
  std::string big(70'000, 'z');
  {
    OneShotServer server([&](int fd) {
      request = ReadRequest(fd);
      // The first frame rides in the same write as the 101, as a fast server may send it.
      WriteAll(fd, SwitchingProtocols(request) + EncodeFrame(0x1, "first\n"));
      WriteAll(fd, EncodeFrame(0x1, "frag-", false) + EncodeFrame(0x0, "ment\n"));
      WriteAll(fd, EncodeFrame(0x9, "are you there"));
      pong = ReadFrame(fd);
      WriteAll(fd, EncodeFrame(0x1, big));
      WriteAll(fd, EncodeFrame(0x8, std::string("\x03\xe8", 2)));  // 1000
      close_reply = ReadFrame(fd);
    });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/api/jobs/j1/logs/tail"), {{"X-Ray-Authorization", "Bearer t"}});
    REQUIRE(connection);
    auto& ws = **connection;
    CHECK(Next(ws)->data == "first\n");
    CHECK(Next(ws)->data == "frag-ment\n");
    auto third = Next(ws);
    CHECK(third->data == big);
    auto closed = Next(ws);
    CHECK(closed->type == WebSocketMessage::Type::kClose);
    CHECK(closed->close_code == 1000);
  }  // joins the server thread: what it read can be checked now

  using testing::Header;
  CHECK(request.starts_with("GET /api/jobs/j1/logs/tail HTTP/1.1\r\n"));
  CHECK(Header(request, "Upgrade") == "websocket");
  CHECK(Header(request, "Sec-WebSocket-Version") == "13");
  CHECK(Header(request, "X-Ray-Authorization") == "Bearer t");
  CHECK(Header(request, "User-Agent").starts_with("tputrain/"));
  CHECK(Header(request, "Host").starts_with("127.0.0.1:"));
  REQUIRE(pong);
  CHECK(pong->opcode == 0xA);
  CHECK(pong->masked);
  CHECK(pong->payload == "are you there");
  REQUIRE(close_reply);
  CHECK(close_reply->opcode == 0x8);
}

TEST_CASE("client frames are masked; a quiet socket times out without error") {
  std::optional<Frame> received;
  {
    OneShotServer server([&](int fd) {
      WriteAll(fd, SwitchingProtocols(ReadRequest(fd)));
      received = ReadFrame(fd);
      WriteAll(fd, EncodeFrame(0x1, "echo:" + (received ? received->payload : std::string())));
      ReadFrame(fd);  // the client's close
    });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/"), {});
    REQUIRE(connection);
    auto quiet = (*connection)->Receive(std::chrono::milliseconds(20));
    REQUIRE(quiet);
    CHECK_FALSE(quiet->has_value());
    REQUIRE((*connection)->SendText("hello"));
    CHECK(Next(**connection)->data == "echo:hello");
    (*connection)->Close(1000);
  }
  REQUIRE(received);
  CHECK(received->masked);
  CHECK(received->opcode == 0x1);
  CHECK(received->payload == "hello");
}

TEST_CASE("a peer that vanishes without a close frame reads as close code 1006") {
  {
    OneShotServer server(
        [&](int fd) { WriteAll(fd, SwitchingProtocols(ReadRequest(fd)) + EncodeFrame(0x1, "last words\n")); });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/"), {});
    REQUIRE(connection);
    CHECK(Next(**connection)->data == "last words\n");
    auto end = Next(**connection);
    CHECK(end->type == WebSocketMessage::Type::kClose);
    CHECK(end->close_code == 1006);
  }
}

// A frame the client must refuse fails the connection (RFC 6455 7.1.7): the client sends its close
// and the connection is finished at once, not polled again and again (a follow once spun at 87%
// CPU after such a frame, its job long finished).
TEST_CASE("a text frame that is not UTF-8 ends the connection with 1007, reported at once and again") {
  std::optional<Frame> close_sent;
  {
    OneShotServer server([&](int fd) {
      WriteAll(fd, SwitchingProtocols(ReadRequest(fd)) + EncodeFrame(0x1, "ok\n") +
                       EncodeFrame(0x1, std::string("bad \xff\xfe bytes\n")));
      close_sent = ReadFrame(fd);
    });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/"), {});
    REQUIRE(connection);
    CHECK(Next(**connection)->data == "ok\n");
    auto refused = Next(**connection);
    REQUIRE(refused.has_value());
    CHECK(refused->type == WebSocketMessage::Type::kClose);
    CHECK(refused->close_code == 1007);
    auto again = Next(**connection);
    REQUIRE(again.has_value());
    CHECK(again->type == WebSocketMessage::Type::kClose);
    CHECK(again->close_code == 1007);
  }
  REQUIRE(close_sent);
  CHECK(close_sent->opcode == 0x8);
  CHECK(close_sent->payload.substr(0, 2) == std::string("\x03\xef", 2));  // 1007
}

TEST_CASE("a frame header announcing more than a message may hold ends the connection with 1009") {
  std::optional<Frame> close_sent;
  {
    OneShotServer server([&](int fd) {
      // 4 GiB announced, a few bytes sent, and then nothing: the server stalls.
      WriteAll(fd, SwitchingProtocols(ReadRequest(fd)) + EncodeFrame(0x1, "aaaa", true, 4ull << 30));
      close_sent = ReadFrame(fd);
    });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/"), {});
    REQUIRE(connection);
    auto refused = Next(**connection);
    REQUIRE(refused.has_value());
    CHECK(refused->type == WebSocketMessage::Type::kClose);
    CHECK(refused->close_code == 1009);
  }
  REQUIRE(close_sent);
  CHECK(close_sent->opcode == 0x8);
}

TEST_CASE("binary messages both ways, byte-exact, and an application's close code (IAP's 4004)") {
  std::string sent_by_client;
  std::string large(100'003, '\0');
  large.replace(100'000, 3, "end");
  std::string binary("\x00\x04\x00\x00\x00\x02\xff\x00", 8);
  {
    OneShotServer server([&](int fd) {
      WriteAll(fd, SwitchingProtocols(ReadRequest(fd)) + EncodeFrame(0x2, binary));
      auto frame = ReadFrame(fd);
      if (frame && frame->opcode == 0x2) sent_by_client = frame->payload;
      WriteAll(fd, EncodeFrame(0x8, std::string("\x0f\xa4"
                                                "reauthenticate",
                                                16)));  // 4004
      ReadFrame(fd);
    });
    CurlWebSocketConnector connector;
    auto connection = connector.Connect(server.Url("/"), {});
    REQUIRE(connection);
    auto first = Next(**connection);
    CHECK(first->type == WebSocketMessage::Type::kBinary);
    CHECK(first->data == binary);
    REQUIRE((*connection)->SendBinary(large));
    auto closed = Next(**connection);
    CHECK(closed->type == WebSocketMessage::Type::kClose);
    CHECK(closed->close_code == 4004);
  }
  CHECK(sent_by_client == large);
}

TEST_CASE("Interrupt from another thread ends the Receive in progress or the next one at once") {
  std::promise<void> done;
  OneShotServer server([&](int fd) {
    WriteAll(fd, SwitchingProtocols(ReadRequest(fd)));
    done.get_future().wait();
  });
  CurlWebSocketConnector connector;
  auto connection = connector.Connect(server.Url("/"), {});
  REQUIRE(connection);
  auto started = std::chrono::steady_clock::now();
  std::thread waker([&] { (*connection)->Interrupt(); });  // before or during the Receive: both wake it
  auto woken = (*connection)->Receive(std::chrono::seconds(30));
  waker.join();
  REQUIRE(woken);
  CHECK_FALSE(woken->has_value());
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  (*connection)->Interrupt();
  auto early = (*connection)->Receive(std::chrono::seconds(30));
  REQUIRE(early);
  CHECK_FALSE(early->has_value());
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  done.set_value();
}

TEST_CASE("a non-101 reply is an error carrying the status and the text body") {
  OneShotServer server([&](int fd) {
    ReadRequest(fd);
    WriteAll(fd,
             "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\nJob x does not exist");
  });
  CurlWebSocketConnector connector;
  auto connection = connector.Connect(server.Url("/api/jobs/x/logs/tail"), {});
  REQUIRE_FALSE(connection);
  CHECK(connection.error().http_status == 404);
  CHECK(connection.error().kind == core::ErrorKind::kNotFound);
  CHECK(connection.error().message == "Job x does not exist");
}

TEST_CASE("a wrong Sec-WebSocket-Accept is refused") {
  OneShotServer server([&](int fd) {
    ReadRequest(fd);
    WriteAll(fd,
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Accept: bm90IHRoZSByaWdodCBvbmU=\r\n\r\n");
  });
  CurlWebSocketConnector connector;
  auto connection = connector.Connect(server.Url("/"), {});
  REQUIRE_FALSE(connection);
  CHECK(connection.error().message.find("Sec-WebSocket-Accept") != std::string::npos);
}

TEST_CASE("plain ws:// goes to loopback only, and only ws(s)/http(s) schemes are accepted") {
  CurlWebSocketConnector connector;
  auto remote = connector.Connect("ws://example.com/api/jobs/x/logs/tail", {});
  REQUIRE_FALSE(remote);
  CHECK(remote.error().message.find("only loopback") != std::string::npos);
  auto ftp = connector.Connect("ftp://127.0.0.1/", {});
  REQUIRE_FALSE(ftp);
}

}  // namespace tputrain::http
