#include "tls_stream.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace tputrain::emulator {

TlsStream::TlsStream(SSL_CTX* context, int fd) : ssl_(SSL_new(context)), fd_(fd) { SSL_set_fd(ssl_, fd_); }

TlsStream::~TlsStream() {
  SSL_shutdown(ssl_);  // best effort close_notify; the peer may be gone
  SSL_free(ssl_);
  close(fd_);
}

bool TlsStream::Accept(std::chrono::seconds timeout) {
  timeval limit{static_cast<time_t>(timeout.count()), 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  return SSL_accept(ssl_) == 1;
}

std::optional<std::string> TlsStream::ReadHead(size_t max_size, std::string& rest) {
  std::string received;
  char buffer[4096];
  while (received.size() < max_size) {
    int n = SSL_read(ssl_, buffer, sizeof(buffer));
    if (n <= 0) return std::nullopt;
    received.append(buffer, static_cast<size_t>(n));
    size_t end = received.find("\r\n\r\n");
    if (end != std::string::npos) {
      rest += received.substr(end + 4);
      return received.substr(0, end);
    }
  }
  return std::nullopt;
}

bool TlsStream::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void TlsStream::SetNonBlocking() { fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK); }

TlsStream::Read TlsStream::ReadAvailable(std::string& into) {
  char buffer[16384];
  bool some = false;
  wants_write_ = false;
  while (true) {
    int n = SSL_read(ssl_, buffer, sizeof(buffer));
    if (n > 0) {
      into.append(buffer, static_cast<size_t>(n));
      some = true;
      continue;
    }
    int error = SSL_get_error(ssl_, n);
    if (error == SSL_ERROR_WANT_READ) return some ? Read::kSome : Read::kNone;
    if (error == SSL_ERROR_WANT_WRITE) {
      wants_write_ = true;
      return some ? Read::kSome : Read::kNone;
    }
    return some ? Read::kSome : Read::kEnd;  // the end is seen again on the next call
  }
}

bool TlsStream::Flush(std::string& pending) {
  wants_write_ = false;
  while (!pending.empty()) {
    int n = SSL_write(ssl_, pending.data(), static_cast<int>(std::min<size_t>(pending.size(), 1 << 20)));
    if (n > 0) {
      pending.erase(0, static_cast<size_t>(n));
      continue;
    }
    int error = SSL_get_error(ssl_, n);
    if (error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ) {
      wants_write_ = true;
      return true;
    }
    return false;
  }
  return true;
}

}  // namespace tputrain::emulator
