// The RFC 6455 client against a small server written here on raw sockets (not wslay), so the
// framing is checked against an independent reading of the RFC.
#include "tputrain/http/websocket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <thread>

namespace tputrain::http {
namespace {

struct Frame {
  bool fin = true;
  int opcode = 0;
  bool masked = false;
  std::string payload;
};

bool ReadExactly(int fd, char* out, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t n = read(fd, out + done, length - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string EncodeFrame(int opcode, const std::string& payload, bool fin = true) {
  std::string frame(1, static_cast<char>((fin ? 0x80 : 0) | opcode));
  if (payload.size() < 126) {
    frame += static_cast<char>(payload.size());
  } else if (payload.size() < 65536) {
    frame += static_cast<char>(126);
    frame += static_cast<char>(payload.size() >> 8);
    frame += static_cast<char>(payload.size() & 0xff);
  } else {
    frame += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8) frame += static_cast<char>((payload.size() >> shift) & 0xff);
  }
  return frame + payload;  // server frames are never masked
}

std::optional<Frame> ReadFrame(int fd) {
  unsigned char head[2];
  if (!ReadExactly(fd, reinterpret_cast<char*>(head), 2)) return std::nullopt;
  Frame frame{(head[0] & 0x80) != 0, head[0] & 0x0f, (head[1] & 0x80) != 0, ""};
  uint64_t length = head[1] & 0x7f;
  if (length >= 126) {
    unsigned char ext[8];
    size_t bytes = length == 126 ? 2 : 8;
    if (!ReadExactly(fd, reinterpret_cast<char*>(ext), bytes)) return std::nullopt;
    length = 0;
    for (size_t i = 0; i < bytes; ++i) length = (length << 8) | ext[i];
  }
  unsigned char mask[4] = {0, 0, 0, 0};
  if (frame.masked && !ReadExactly(fd, reinterpret_cast<char*>(mask), 4)) return std::nullopt;
  frame.payload.resize(length);
  if (!ReadExactly(fd, frame.payload.data(), length)) return std::nullopt;
  for (size_t i = 0; i < length; ++i) frame.payload[i] = static_cast<char>(frame.payload[i] ^ mask[i % 4]);
  return frame;
}

std::string ReadRequest(int fd) {
  std::string request;
  char c;
  while (request.find("\r\n\r\n") == std::string::npos && read(fd, &c, 1) == 1) request += c;
  return request;
}

std::string Header(const std::string& request, const std::string& name) {
  auto at = request.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  at += name.size() + 4;
  return request.substr(at, request.find("\r\n", at) - at);
}

std::string Accept(const std::string& key) {
  std::string input = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  unsigned char out[64];
  int n = EVP_EncodeBlock(out, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<char*>(out), static_cast<size_t>(n));
}

std::string SwitchingProtocols(const std::string& request) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
         Accept(Header(request, "Sec-WebSocket-Key")) + "\r\n\r\n";
}

// Accepts one connection on 127.0.0.1 and runs `script` on it in a thread.
class OneShotServer {
 public:
  explicit OneShotServer(std::function<void(int fd)> script) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    listen(listener_, 1);
    socklen_t length = sizeof address;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, script] {
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      script(fd);
      close(fd);
    });
  }
  ~OneShotServer() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }
  std::string Url(const std::string& path) const { return "ws://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

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
