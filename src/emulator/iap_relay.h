#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "iap_relay_connection.h"
#include "iap_relay_tls.h"
#include "tputrain/core/result.h"

namespace tputrain::emulator {

// The emulator's IAP TCP-forwarding relay (--tpu-hosts netns): wss://127.0.0.1:PORT, with a
// certificate from a CA made at start, serving /v4/connect and /v4/reconnect as
// tunnel.cloudproxy.app does and reaching the instance's port from the machine (which routes to
// the hosts' bridge). One thread per connection; destruction ends them all.
class IapRelay {
 public:
  using Resolver = std::function<std::optional<std::string>(const IapUpgrade&)>;

  // Listens on a free loopback port and writes the CA's PEM to `ca_path` (0644).
  static core::Result<std::unique_ptr<IapRelay>> Start(Resolver resolve, std::string ca_path);
  ~IapRelay();

  std::string url() const;  // wss://127.0.0.1:PORT: what --iap-tunnel-url-override takes
  const std::string& ca_path() const { return ca_path_; }
  // Every WebSocket carrying a session now closes with 4004, as when a token expires; the
  // sessions wait for /v4/reconnect. Returns the number of sessions held.
  size_t RequestReauthentication();

 private:
  IapRelay(RelayTls tls, Resolver resolve, std::string ca_path, int listen_fd, int port);
  void AcceptLoop();

  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  RelayTls tls_;
  IapRelaySessions sessions_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> reauthentications_{0};
  IapRelayContext context_;
  std::string ca_path_;
  int listen_fd_;
  int port_;
  std::thread acceptor_;
  std::vector<Worker> workers_;  // the acceptor's own, until destruction joins them
};

}  // namespace tputrain::emulator
