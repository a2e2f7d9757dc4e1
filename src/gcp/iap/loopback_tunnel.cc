#include "tputrain/gcp/iap/loopback_tunnel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <string>

namespace tputrain::gcp::iap {
namespace {

// The socket reader stops reading while this much waits to be sent, and the session stops taking
// it while this much is unacknowledged: a fast client cannot grow either without bound.
constexpr size_t kMaxQueued = 1 << 20;
constexpr uint64_t kMaxUnacked = 8 << 20;
// Receive returns at least this often, though nothing needs it to: the wake-ups come from the
// reader thread and Stop().
constexpr std::chrono::minutes kReceiveWait{1};

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

core::Error SocketError(const std::string& what) {
  auto error = core::Error::Make(core::ErrorKind::kUnavailable, what + ": " + std::strerror(errno));
  error.where = "iap-tunnel";
  return error;
}

}  // namespace

struct LoopbackTunnel::Connection {
  explicit Connection(int socket) : fd(socket) {}
  ~Connection() {
    if (pump.joinable()) pump.join();
    close(fd);
  }

  // Wakes the thread that owns the session (for data to send, or to stop).
  void Wake() {
    std::lock_guard lock(mutex);
    if (live_session != nullptr) live_session->Interrupt();
  }

  void ReadSocket();
  void Pump(const SessionOpener& open_session, const ConnectionErrorSink& on_error);
  void PumpSession(TunnelSession& tunnel, const ConnectionErrorSink& on_error);

  const int fd;
  std::mutex mutex;
  std::condition_variable drained;
  std::string outbound;                   // read from the socket, not yet given to the session
  bool socket_ended = false;              // the client closed its side (or the socket failed)
  bool done = false;                      // the pump finished: the reader stops waiting
  TunnelSession* live_session = nullptr;  // while the pump owns one
  std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
  std::thread pump;
};

void LoopbackTunnel::Connection::ReadSocket() {
  char buffer[64 * 1024];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    std::unique_lock lock(mutex);
    if (n <= 0) {
      socket_ended = true;
    } else {
      outbound.append(buffer, static_cast<size_t>(n));
    }
    if (live_session != nullptr) live_session->Interrupt();
    if (n <= 0) return;
    drained.wait(lock, [&] { return outbound.size() < kMaxQueued || done; });
    if (done) return;
  }
}

void LoopbackTunnel::Connection::PumpSession(TunnelSession& tunnel, const ConnectionErrorSink& on_error) {
  while (!stop) {
    std::string to_send;
    bool client_gone = false;
    {
      std::lock_guard lock(mutex);
      if (tunnel.unacked_bytes() < kMaxUnacked) to_send.swap(outbound);
      client_gone = socket_ended && outbound.empty();
    }
    drained.notify_all();
    if (!to_send.empty()) {
      if (auto sent = tunnel.Send(to_send); !sent) return on_error(sent.error());
    }
    // As gcloud does: the client closing its side ends the session (the protocol has no half-close).
    if (client_gone) return;
    auto received = tunnel.Receive(kReceiveWait);
    if (!received) return on_error(received.error());
    if (received->ended) return;
    if (!WriteAll(fd, received->bytes)) return;
  }
}

void LoopbackTunnel::Connection::Pump(const SessionOpener& open_session, const ConnectionErrorSink& on_error) {
  auto session = open_session();
  if (!session) {
    on_error(session.error());
  } else if (!stop) {
    {
      std::lock_guard lock(mutex);
      live_session = session->get();
    }
    std::thread reader([this] { ReadSocket(); });
    PumpSession(**session, on_error);
    (*session)->Close();
    {
      std::lock_guard lock(mutex);
      live_session = nullptr;
      done = true;
    }
    drained.notify_all();
    shutdown(fd, SHUT_RDWR);  // ends the reader's read()
    reader.join();
  }
  shutdown(fd, SHUT_RDWR);
  finished = true;
}

core::Result<std::unique_ptr<LoopbackTunnel>> LoopbackTunnel::Listen(int port, SessionOpener open_session,
                                                                     ConnectionErrorSink on_error) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return core::Fail(SocketError("socket"));
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(listener, 64) != 0) {
    auto error = SocketError("cannot listen on 127.0.0.1:" + std::to_string(port));
    close(listener);
    return core::Fail(error);
  }
  socklen_t length = sizeof address;
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    auto error = SocketError("eventfd");
    close(listener);
    return core::Fail(error);
  }
  return std::unique_ptr<LoopbackTunnel>(
      new LoopbackTunnel(listener, wake, ntohs(address.sin_port), std::move(open_session), std::move(on_error)));
}

LoopbackTunnel::LoopbackTunnel(int listener, int wake, int port, SessionOpener open_session,
                               ConnectionErrorSink on_error)
    : listener_(listener), wake_(wake), port_(port), open_session_(std::move(open_session)),
      on_error_(std::move(on_error)) {
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

LoopbackTunnel::~LoopbackTunnel() {
  Stop();
  close(listener_);
  close(wake_);
}

void LoopbackTunnel::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ReapFinished();
    std::lock_guard lock(mutex_);
    if (stopping_) {
      close(fd);
      return;
    }
    auto& connection = connections_.emplace_back(std::make_unique<Connection>(fd));
    connection->pump = std::thread([this, raw = connection.get()] { raw->Pump(open_session_, on_error_); });
  }
}

void LoopbackTunnel::ReapFinished() {
  std::lock_guard lock(mutex_);
  connections_.remove_if([](const auto& connection) { return connection->finished.load(); });
}

void LoopbackTunnel::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  uint64_t one = 1;
  [[maybe_unused]] auto written = write(wake_, &one, sizeof one);
  if (accept_thread_.joinable()) accept_thread_.join();
  for (auto& connection : connections_) {
    connection->stop = true;
    connection->Wake();
    shutdown(connection->fd, SHUT_RDWR);  // a pump blocked writing to a slow client
  }
  connections_.clear();  // each joins its pump, which joins its reader
}

}  // namespace tputrain::gcp::iap
