#include "tputrain/http/websocket.h"

#include <curl/curl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <random>

#include "curl_library.h"
#include "tputrain/core/version.h"
#include "tputrain/http/curl_transport.h"
#include "websocket_handshake.h"

namespace tputrain::http {
namespace {

using Clock = std::chrono::steady_clock;

core::Error Unavailable(std::string message) {
  auto error = core::Error::Make(core::ErrorKind::kUnavailable, std::move(message));
  error.where = "websocket";
  return error;
}

int MillisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// wslay drives the framing; bytes move through curl_easy_send/recv on the connection curl
// opened (plain or TLS, through a proxy if curl was told to use one).
class CurlWebSocketConnection final : public WebSocketConnection {
 public:
  CurlWebSocketConnection(const CurlLibrary& api, CURL* curl, curl_socket_t socket, std::string already_read)
      : api_(api), curl_(curl), socket_(socket), pending_(std::move(already_read)), random_(std::random_device{}()),
        wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    wslay_event_callbacks callbacks{};
    callbacks.recv_callback = &OnRecv;
    callbacks.send_callback = &OnSend;
    callbacks.genmask_callback = &OnGenMask;
    callbacks.on_msg_recv_callback = &OnMessage;
    wslay_event_context_client_init(&context_, &callbacks, this);
    wslay_event_config_set_max_recv_msg_length(context_, 64ull << 20);
  }

  ~CurlWebSocketConnection() override {
    wslay_event_context_free(context_);
    api_.easy_cleanup(curl_);
    if (wake_ >= 0) close(wake_);
  }

  core::Result<std::optional<WebSocketMessage>> Receive(std::chrono::milliseconds wait) override {
    auto deadline = Clock::now() + wait;
    while (true) {
      if (!messages_.empty()) {
        auto message = std::move(messages_.front());
        messages_.pop_front();
        if (message.type == WebSocketMessage::Type::kClose) {
          Flush(deadline);  // our close reply
          Finish(message.close_code);
        }
        return std::optional<WebSocketMessage>(std::move(message));
      }
      if (closed_) {
        return std::optional<WebSocketMessage>(WebSocketMessage{WebSocketMessage::Type::kClose, "", close_code_});
      }
      if (wslay_event_recv(context_) != 0 || eof_) {
        Finish(1006);  // the peer went away without a close frame: 1006 as RFC 6455 names it
        continue;
      }
      Flush(deadline);  // pongs and close replies that wslay queued
      if (!messages_.empty()) continue;
      if (!wslay_event_get_read_enabled(context_)) {
        // wslay failed the connection (a text frame that is not UTF-8: 1007; a message over the
        // limit: 1009; a protocol error: 1002) and sent its close: nothing more will be read, and
        // a socket the peer then closes would poll readable for ever.
        Finish(wslay_event_get_close_sent(context_) ? wslay_event_get_status_code_sent(context_) : 1006);
        continue;
      }
      if (MillisLeft(deadline) == 0 || TakeInterrupt()) return std::optional<WebSocketMessage>();
      pollfd fds[2] = {{socket_, POLLIN, 0}, {wake_, POLLIN, 0}};
      const int ready = poll(fds, wake_ >= 0 ? 2 : 1, MillisLeft(deadline));
      if (ready == 0) return std::optional<WebSocketMessage>();
      if (ready > 0 && (fds[0].revents & (POLLERR | POLLNVAL)) != 0) Finish(1006);
      // POLLHUP with POLLIN: the next recv reads what is left, then the end.
    }
  }

  core::Status SendText(std::string_view text) override { return Send(WSLAY_TEXT_FRAME, text); }
  core::Status SendBinary(std::string_view bytes) override { return Send(WSLAY_BINARY_FRAME, bytes); }

  void Interrupt() override {
    uint64_t one = 1;
    if (wake_ < 0) return;
    [[maybe_unused]] auto written = write(wake_, &one, sizeof one);  // only fails when the count is huge
  }

  void Close(int code) override {
    if (!closed_ && !wslay_event_get_close_sent(context_)) {
      wslay_event_queue_close(context_, static_cast<uint16_t>(code), nullptr, 0);
      Flush(Clock::now() + std::chrono::seconds(1));
    }
    Finish(code);
  }

 private:
  core::Status Send(uint8_t opcode, std::string_view text) {
    wslay_event_msg message{opcode, reinterpret_cast<const uint8_t*>(text.data()), text.size()};
    if (wslay_event_queue_msg(context_, &message) != 0) return core::Fail(Unavailable("WebSocket is closed"));
    if (!Flush(Clock::now() + std::chrono::seconds(30))) return core::Fail(Unavailable("WebSocket send failed"));
    return {};
  }

  // The connection is finished: every later Receive reports this close at once.
  void Finish(int code) {
    if (closed_) return;
    closed_ = true;
    close_code_ = code;
  }

  // True when Interrupt() was called since the last check (an eventfd counts the calls).
  bool TakeInterrupt() {
    uint64_t count = 0;
    return wake_ >= 0 && read(wake_, &count, sizeof count) == sizeof count;
  }

  // Writes what wslay has queued; false when the socket failed or the deadline passed.
  bool Flush(Clock::time_point deadline) {
    while (wslay_event_want_write(context_)) {
      if (wslay_event_send(context_) != 0) return false;
      if (!wslay_event_want_write(context_)) break;
      pollfd fd{socket_, POLLOUT, 0};
      if (poll(&fd, 1, MillisLeft(deadline)) <= 0) return false;
    }
    return true;
  }

  static ssize_t OnRecv(wslay_event_context_ptr context, uint8_t* buffer, size_t length, int, void* user) {
    auto* self = static_cast<CurlWebSocketConnection*>(user);
    if (!self->pending_.empty()) {
      size_t n = std::min(length, self->pending_.size());
      std::copy_n(self->pending_.data(), n, buffer);
      self->pending_.erase(0, n);
      return static_cast<ssize_t>(n);
    }
    size_t received = 0;
    CURLcode code = self->api_.easy_recv(self->curl_, buffer, length, &received);
    if (code == CURLE_AGAIN) {
      wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK);
      return -1;
    }
    if (code != CURLE_OK || received == 0) {
      self->eof_ = true;
      wslay_event_set_error(context, WSLAY_ERR_CALLBACK_FAILURE);
      return -1;
    }
    return static_cast<ssize_t>(received);
  }

  static ssize_t OnSend(wslay_event_context_ptr context, const uint8_t* data, size_t length, int, void* user) {
    auto* self = static_cast<CurlWebSocketConnection*>(user);
    size_t sent = 0;
    CURLcode code = self->api_.easy_send(self->curl_, data, length, &sent);
    if (code == CURLE_AGAIN) {
      wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK);
      return -1;
    }
    if (code != CURLE_OK) {
      wslay_event_set_error(context, WSLAY_ERR_CALLBACK_FAILURE);
      return -1;
    }
    return static_cast<ssize_t>(sent);
  }

  static int OnGenMask(wslay_event_context_ptr, uint8_t* buffer, size_t length, void* user) {
    auto* self = static_cast<CurlWebSocketConnection*>(user);
    for (size_t i = 0; i < length; ++i) buffer[i] = static_cast<uint8_t>(self->random_());
    return 0;
  }

  static void OnMessage(wslay_event_context_ptr, const wslay_event_on_msg_recv_arg* arg, void* user) {
    auto* self = static_cast<CurlWebSocketConnection*>(user);
    WebSocketMessage message;
    if (arg->opcode == WSLAY_CONNECTION_CLOSE) {
      message.type = WebSocketMessage::Type::kClose;
      message.close_code = arg->status_code == 0 ? 1005 : arg->status_code;
    } else if (arg->opcode == WSLAY_TEXT_FRAME || arg->opcode == WSLAY_BINARY_FRAME) {
      message.type = arg->opcode == WSLAY_TEXT_FRAME ? WebSocketMessage::Type::kText : WebSocketMessage::Type::kBinary;
    } else {
      return;  // ping/pong: wslay answers pings itself
    }
    message.data.assign(reinterpret_cast<const char*>(arg->msg), arg->msg_length);
    self->messages_.push_back(std::move(message));
  }

  const CurlLibrary& api_;
  CURL* curl_;
  curl_socket_t socket_;
  std::string pending_;  // bytes read past the handshake reply
  std::mt19937 random_;
  wslay_event_context_ptr context_ = nullptr;
  std::deque<WebSocketMessage> messages_;
  bool eof_ = false;
  bool closed_ = false;
  int close_code_ = 1006;  // what a Receive after the end reports
  int wake_;               // eventfd that Interrupt() writes and Receive polls beside the socket
};

// Sends all of `data` and reads the reply header block (plus, for errors, a short body).
core::Result<std::string> Exchange(const CurlLibrary& api, CURL* curl, curl_socket_t socket, const std::string& data,
                                   Clock::time_point deadline, internal::HandshakeReply& reply) {
  size_t offset = 0;
  while (offset < data.size()) {
    size_t sent = 0;
    CURLcode code = api.easy_send(curl, data.data() + offset, data.size() - offset, &sent);
    if (code == CURLE_AGAIN) {
      pollfd fd{socket, POLLOUT, 0};
      if (poll(&fd, 1, MillisLeft(deadline)) <= 0) return core::Fail(Unavailable("WebSocket upgrade timed out"));
      continue;
    }
    if (code != CURLE_OK) return core::Fail(Unavailable(std::string("WebSocket upgrade: ") + api.easy_strerror(code)));
    offset += sent;
  }
  std::string received;
  char buffer[4096];
  while (true) {
    size_t n = 0;
    CURLcode code = api.easy_recv(curl, buffer, sizeof buffer, &n);
    if (code == CURLE_AGAIN) {
      pollfd fd{socket, POLLIN, 0};
      if (poll(&fd, 1, MillisLeft(deadline)) <= 0) {
        if (reply.status != 0) return received;  // an error reply whose body never ended
        return core::Fail(Unavailable("WebSocket upgrade timed out"));
      }
      continue;
    }
    if (code != CURLE_OK) return core::Fail(Unavailable(std::string("WebSocket upgrade: ") + api.easy_strerror(code)));
    if (n == 0) {
      if (reply.status != 0) return received;
      return core::Fail(Unavailable("WebSocket upgrade: the server closed the connection"));
    }
    received.append(buffer, n);
    if (reply.status == 0) {
      auto parsed = internal::ParseHandshakeReply(received);
      if (!parsed) return core::Fail(parsed.error());
      reply = *parsed;
    }
    if (reply.status == 101) return received;
    if (reply.status != 0) {
      auto length = FindHeader(reply.headers, "content-length");
      size_t want = length ? std::stoul(*length) : 4096;
      if (received.size() >= reply.header_bytes + want) return received;
    }
  }
}

}  // namespace

CurlWebSocketConnector::CurlWebSocketConnector(WebSocketOptions options) : options_(std::move(options)) {
  if (options_.user_agent.empty()) options_.user_agent = std::string("tputrain/") + core::kVersion;
}

core::Result<std::unique_ptr<WebSocketConnection>> CurlWebSocketConnector::Connect(const std::string& url,
                                                                                   const Headers& headers) {
  std::string http_url = url;
  if (url.starts_with("ws://")) http_url = "http://" + url.substr(5);
  if (url.starts_with("wss://")) http_url = "https://" + url.substr(6);
  if (auto allowed = CheckUrlAllowed(http_url); !allowed) return core::Fail(allowed.error());
  auto parts = ParseUrl(http_url);
  if (!parts) return core::Fail(parts.error());

  auto opened = OpenCurl();
  if (!opened) return core::Fail(opened.error());
  const CurlLibrary& api = **opened;
  CURL* curl = api.easy_init();
  if (curl == nullptr) return core::Fail(core::Error::Internal("curl_easy_init failed"));
  char error_buffer[CURL_ERROR_SIZE] = {0};
  api.easy_setopt(curl, CURLOPT_URL, http_url.c_str());
  api.easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);  // as CurlTransport: dot segments are not resolved
  api.easy_setopt(curl, CURLOPT_CONNECT_ONLY, 1L);
  // The upgrade is HTTP/1.1: TLS must not negotiate h2 (a Kubernetes API server would).
  api.easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  api.easy_setopt(curl, CURLOPT_HTTPPROXYTUNNEL, 1L);  // through a proxy, a CONNECT tunnel
  api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  api.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  api.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.ca_bundle.empty()) api.easy_setopt(curl, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  curl_blob ca{options_.ca_pem.data(), options_.ca_pem.size(), CURL_BLOB_COPY};
  if (!options_.ca_pem.empty()) {
    api.easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    api.easy_setopt(curl, CURLOPT_CAPATH, nullptr);
  }
  api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  api.easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  if (CURLcode code = api.easy_perform(curl); code != CURLE_OK) {
    api.easy_cleanup(curl);
    return core::Fail(
        Unavailable("cannot reach " + url + ": " + (error_buffer[0] != '\0' ? error_buffer : api.easy_strerror(code))));
  }
  curl_socket_t socket = CURL_SOCKET_BAD;
  api.easy_getinfo(curl, CURLINFO_ACTIVESOCKET, &socket);

  std::string key = internal::NewClientKey();
  internal::HandshakeReply reply;
  auto received = Exchange(api, curl, socket, internal::UpgradeRequest(*parts, key, options_.user_agent, headers),
                           Clock::now() + options_.connect_timeout, reply);
  if (!received) {
    api.easy_cleanup(curl);
    return core::Fail(received.error());
  }
  if (reply.status != 101) {
    api.easy_cleanup(curl);
    auto error = core::Error::Make(core::KindFromHttpStatus(reply.status), received->substr(reply.header_bytes));
    error.http_status = reply.status;
    error.where = "websocket";
    return core::Fail(error);
  }
  if (FindHeader(reply.headers, "sec-websocket-accept").value_or("") != internal::AcceptFor(key)) {
    api.easy_cleanup(curl);
    return core::Fail(Unavailable("WebSocket upgrade: the server's Sec-WebSocket-Accept does not match"));
  }
  return std::unique_ptr<WebSocketConnection>(
      std::make_unique<CurlWebSocketConnection>(api, curl, socket, received->substr(reply.header_bytes)));
}

}  // namespace tputrain::http
