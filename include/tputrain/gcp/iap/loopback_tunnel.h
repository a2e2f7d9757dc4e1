#pragma once

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iap/tunnel_session.h"

namespace tputrain::gcp::iap {

// Opens the tunnel session for one accepted connection (TunnelSession::Open with the caller's
// connector and target).
using SessionOpener = std::function<core::Result<std::unique_ptr<TunnelSession>>()>;
// Told why one connection ended early (a failed open, a 4003, a lost relay). Called from the
// connection's own thread, so it must be thread-safe.
using ConnectionErrorSink = std::function<void(const core::Error&)>;

// A TCP listener on 127.0.0.1 that carries each accepted connection through its own tunnel
// session, bytes both ways, until either side closes (what `gcloud compute start-iap-tunnel`
// does). Each connection has two threads: one owns the session and writes to the socket, one
// reads the socket and wakes the first; nothing polls on a timer.
class LoopbackTunnel {
 public:
  // `port` 0 picks a free one (see port()).
  static core::Result<std::unique_ptr<LoopbackTunnel>> Listen(int port, SessionOpener open_session,
                                                              ConnectionErrorSink on_error);
  ~LoopbackTunnel();
  LoopbackTunnel(const LoopbackTunnel&) = delete;
  LoopbackTunnel& operator=(const LoopbackTunnel&) = delete;

  int port() const { return port_; }
  // Stops accepting, ends every connection (closing its session) and joins their threads.
  void Stop();

  struct Connection;  // one accepted socket and its session (loopback_tunnel.cc)

 private:
  LoopbackTunnel(int listener, int wake, int port, SessionOpener open_session, ConnectionErrorSink on_error);
  void AcceptLoop();
  void ReapFinished();

  int listener_;
  int wake_;  // eventfd that Stop() writes so AcceptLoop's poll returns
  int port_;
  SessionOpener open_session_;
  ConnectionErrorSink on_error_;
  std::mutex mutex_;
  bool stopping_ = false;
  std::list<std::unique_ptr<Connection>> connections_;
  std::thread accept_thread_;
};

}  // namespace tputrain::gcp::iap
