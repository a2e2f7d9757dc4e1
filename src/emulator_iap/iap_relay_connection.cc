#include "iap_relay_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <variant>

#include "iap_relay_pump.h"
#include "tls_stream.h"
#include "websocket_server.h"

namespace tputrain::emulator {
namespace {

constexpr std::chrono::seconds kHandshakeTimeout{10};
constexpr std::chrono::seconds kConnectTimeout{5};
constexpr size_t kMaxHead = 16 * 1024;

std::string Refusal(const HttpRefusal& refusal) {
  return "HTTP/1.1 " + std::to_string(refusal.status) + " " + refusal.reason +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(refusal.text.size()) +
         "\r\nConnection: close\r\n\r\n" + refusal.text;
}

std::string SwitchingProtocols(const UpgradeRequest& request) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
         WebSocketAcceptKey(request.headers.at("sec-websocket-key")) +
         "\r\nSec-WebSocket-Protocol: " + kIapSubprotocol + "\r\n\r\n";
}

// A TCP connection to address:port, or -1 when nothing answers there in time.
int ConnectToInstance(const std::string& address, int port) {
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &target.sin_addr) != 1) return -1;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval limit{static_cast<time_t>(kConnectTimeout.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));  // bounds connect()
  if (connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

void Connect(TlsStream& tls, std::string& from_client, const IapUpgrade& upgrade, const IapRelayContext& context) {
  auto address = context.resolve(upgrade);
  if (!address) {
    CloseWebSocket(tls, from_client, kIapCloseUnknownInstance, "Failed to lookup instance");
    return;
  }
  int fd = ConnectToInstance(*address, upgrade.port);
  if (fd < 0) {
    CloseWebSocket(tls, from_client, kIapCloseCannotConnect, "failed to connect to backend");
    return;
  }
  auto session = context.sessions->Add(fd);
  std::string to_client = EncodeServerFrame(kWsBinary, EncodeIapSid(session->sid));
  RunSession(tls, from_client, std::move(to_client), session, context);
}

void Reconnect(TlsStream& tls, std::string& from_client, const IapUpgrade& upgrade, const IapRelayContext& context) {
  auto session = context.sessions->Attach(upgrade.sid);
  if (!session) {
    CloseWebSocket(tls, from_client, kIapCloseUnknownSession, "unknown or expired session");
    return;
  }
  RunResumedSession(tls, from_client, upgrade.ack, session, context);
}

}  // namespace

void ServeIapRelayConnection(int fd, const IapRelayContext& context) {
  TlsStream tls(context.tls, fd);
  if (!tls.Accept(kHandshakeTimeout)) return;
  std::string from_client;
  auto head = tls.ReadHead(kMaxHead, from_client);
  if (!head) return;
  auto request = ParseUpgradeRequest(*head);
  if (!request) {
    tls.WriteAll(Refusal({400, "Bad Request", "not an HTTP/1.1 request\n"}));
    return;
  }
  auto checked = CheckIapUpgrade(*request);
  if (auto* refusal = std::get_if<HttpRefusal>(&checked)) {
    tls.WriteAll(Refusal(*refusal));
    return;
  }
  if (!tls.WriteAll(SwitchingProtocols(*request))) return;
  tls.SetNonBlocking();
  const auto& upgrade = std::get<IapUpgrade>(checked);
  if (upgrade.endpoint == IapEndpoint::kConnect) {
    Connect(tls, from_client, upgrade, context);
  } else {
    Reconnect(tls, from_client, upgrade, context);
  }
}

}  // namespace tputrain::emulator
