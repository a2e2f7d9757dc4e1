#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <optional>
#include <string>

// One accepted TLS connection of the relay, blocking (with a timeout) for the handshake and the
// upgrade, then non-blocking for the poll loop. Owns the socket.
namespace tputrain::emulator {

class TlsStream {
 public:
  TlsStream(SSL_CTX* context, int fd);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  int fd() const { return fd_; }

  // Blocking phase, each read or write waiting at most `timeout`.
  bool Accept(std::chrono::seconds timeout);
  // The HTTP head up to its blank line (without it); what came after it is appended to `rest`.
  std::optional<std::string> ReadHead(size_t max_size, std::string& rest);
  bool WriteAll(std::string_view bytes);

  // Non-blocking phase.
  void SetNonBlocking();
  enum class Read { kSome, kNone, kEnd };
  // Appends what can be read now to `into`.
  Read ReadAvailable(std::string& into);
  // Writes what it can of `pending`, erasing it; false when the connection failed.
  bool Flush(std::string& pending);
  // Bytes OpenSSL has decrypted but not handed out: poll would not see them.
  bool HasBuffered() const { return SSL_pending(ssl_) > 0; }
  // OpenSSL needs the socket writable before it can go on.
  bool WantsWrite() const { return wants_write_; }

 private:
  SSL* ssl_;
  int fd_;
  bool wants_write_ = false;
};

}  // namespace tputrain::emulator
