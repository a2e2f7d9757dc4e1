#pragma once

// `tputrain emulator start` on a free loopback port, spoken to over raw HTTP/1.1: a test controls
// every byte (bodies streamed in pieces, chunked framing, bytes that are not UTF-8) and never
// holds a large body itself. Its peak memory is read from /proc/PID/status (VmHWM).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testing/free_port.h"
#include "testing/scoped_process.h"

namespace tputrain::emulator::testing {

struct RawReply {
  int status = 0;  // 0: no answer (the connection failed or closed first)
  std::string body;
};

// Writes `head` (request line and headers, without the blank line), then the body: `body_bytes`
// in all, each piece from `piece` (which may be shorter than asked, never empty), as they are or
// chunked; then reads one answer.
inline RawReply RawExchange(int port, const std::string& head, size_t body_bytes,
                            const std::function<std::string(size_t offset, size_t wanted)>& piece,
                            bool chunked = false) {
  RawReply reply;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return reply;
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  timeval timeout{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return reply;
  auto send_all = [fd](const std::string& data) {
    for (size_t sent = 0; sent < data.size();) {
      const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  };
  std::string framing = head + "\r\nHost: 127.0.0.1\r\n";
  framing += chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + std::to_string(body_bytes) + "\r\n";
  bool sending = send_all(framing + "\r\n");
  for (size_t offset = 0; sending && offset < body_bytes;) {
    std::string data = piece(offset, std::min<size_t>(body_bytes - offset, 1 << 20));
    offset += data.size();
    if (chunked) {
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", data.size());
      data = size + data + "\r\n";
    }
    sending = send_all(data);  // a server may answer and stop reading early: read its answer then
  }
  if (sending && chunked) send_all("0\r\n\r\n");
  std::string received;
  char buffer[64 * 1024];
  size_t header_end = std::string::npos;
  size_t length = std::string::npos;
  while (true) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    received.append(buffer, static_cast<size_t>(n));
    if (header_end == std::string::npos && (header_end = received.find("\r\n\r\n")) != std::string::npos) {
      std::string lower = received.substr(0, header_end);
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (auto at = lower.find("\r\ncontent-length:"); at != std::string::npos) {
        length = std::stoul(lower.substr(at + 17));
      }
    }
    if (header_end != std::string::npos && length != std::string::npos && received.size() >= header_end + 4 + length) {
      break;
    }
  }
  if (received.rfind("HTTP/1.1 ", 0) != 0 || header_end == std::string::npos) return reply;
  reply.status = std::stoi(received.substr(9, 3));
  reply.body = received.substr(header_end + 4);
  return reply;
}

class EmulatorProcess {
 public:
  EmulatorProcess() : port_(tputrain::testing::FreeLoopbackPort()) {
    process_ = std::make_unique<tputrain::testing::ScopedProcess>(tputrain::testing::ProcessOptions{
        {tputrain::testing::TputrainBinary(), "emulator", "start", "--port", std::to_string(port_)}});
    ready_ = tputrain::testing::WaitFor([&] { return Send("GET", "/_emulator/state").status == 200; },
                                        std::chrono::seconds(20));
  }

  bool ready() const { return ready_; }
  bool running() { return process_->running(); }
  int port() const { return port_; }
  int pid() const { return process_->pid(); }
  std::string err() const { return process_->ReadErr(); }

  // One request with a body held whole (small ones), a bearer token unless `headers` say otherwise.
  RawReply Send(const std::string& method, const std::string& path, const std::string& body = "",
                const std::string& headers = "Authorization: Bearer t\r\nContent-Type: application/json") {
    return RawExchange(port_, method + " " + path + " HTTP/1.1\r\n" + headers, body.size(),
                       [&](size_t offset, size_t wanted) { return body.substr(offset, wanted); });
  }

  // The emulator's peak resident memory so far, in KiB (VmHWM); 0 once it has ended.
  long PeakRssKib() const {
    std::ifstream status("/proc/" + std::to_string(process_->pid()) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return 0;
  }

 private:
  int port_;
  std::unique_ptr<tputrain::testing::ScopedProcess> process_;
  bool ready_ = false;
};

}  // namespace tputrain::emulator::testing
