#pragma once

#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace tputrain::testing {

// Runs a cpp-httplib server on a free 127.0.0.1 port for the life of the object. For tests of
// the transport and credentials layers only: API behaviour is tested against the emulator,
// Ray and kube-apiserver themselves.
class LoopbackServer {
 public:
  explicit LoopbackServer(httplib::Server& server) : server_(server) {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server& server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace tputrain::testing
