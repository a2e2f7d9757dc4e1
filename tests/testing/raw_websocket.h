#pragma once

// A WebSocket server side written here on raw sockets (not wslay), so the client's framing is
// checked against an independent reading of RFC 6455, and so a test can send what no library
// would: a text frame that is not UTF-8, a header announcing gigabytes and then nothing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace tputrain::testing {

struct Frame {
  bool fin = true;
  int opcode = 0;
  bool masked = false;
  std::string payload;
};

inline bool ReadExactly(int fd, char* out, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t n = read(fd, out + done, length - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

inline void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// A server frame (never masked); `announced` > payload.size() sends a header that promises more.
inline std::string EncodeFrame(int opcode, const std::string& payload, bool fin = true, uint64_t announced = 0) {
  if (announced < payload.size()) announced = payload.size();
  std::string frame(1, static_cast<char>((fin ? 0x80 : 0) | opcode));
  if (announced < 126) {
    frame += static_cast<char>(announced);
  } else if (announced < 65536) {
    frame += static_cast<char>(126);
    frame += static_cast<char>(announced >> 8);
    frame += static_cast<char>(announced & 0xff);
  } else {
    frame += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8) frame += static_cast<char>((announced >> shift) & 0xff);
  }
  return frame + payload;
}

inline std::optional<Frame> ReadFrame(int fd) {
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

inline std::string ReadRequest(int fd) {
  std::string request;
  char c;
  while (request.find("\r\n\r\n") == std::string::npos && read(fd, &c, 1) == 1) request += c;
  return request;
}

inline std::string Header(const std::string& request, const std::string& name) {
  auto at = request.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  at += name.size() + 4;
  return request.substr(at, request.find("\r\n", at) - at);
}

inline std::string Accept(const std::string& key) {
  std::string input = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  unsigned char out[64];
  int n = EVP_EncodeBlock(out, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<char*>(out), static_cast<size_t>(n));
}

inline std::string SwitchingProtocols(const std::string& request) {
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

}  // namespace tputrain::testing
