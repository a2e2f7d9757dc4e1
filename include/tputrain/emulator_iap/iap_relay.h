#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "tputrain/core/result.h"

namespace tputrain::emulator {

// The instance an IAP tunnel asks for (/v4/connect's project, zone and instance).
struct IapInstance {
  std::string project, zone, instance;
};

// The emulator's IAP TCP-forwarding relay (--tpu-hosts netns): wss://127.0.0.1:PORT, with a
// certificate from a CA made at start, serving /v4/connect and /v4/reconnect as
// tunnel.cloudproxy.app does and reaching the instance's port from the machine (which routes to
// the hosts' bridge). One thread per connection; destruction ends them all.
class IapRelay {
 public:
  // The IPv4 address of the instance a tunnel names, or nothing when there is no such instance.
  using Resolver = std::function<std::optional<std::string>(const IapInstance&)>;

  // Listens on a free loopback port and writes the CA's PEM to `ca_path` (0644).
  static core::Result<std::unique_ptr<IapRelay>> Start(Resolver resolve, std::string ca_path);
  ~IapRelay();

  std::string url() const;  // wss://127.0.0.1:PORT: what --iap-tunnel-url-override takes
  const std::string& ca_path() const;
  // Every WebSocket carrying a session now closes with 4004, as when a token expires; the
  // sessions wait for /v4/reconnect. Returns the number of sessions held.
  size_t RequestReauthentication();

  struct Listener;  // the listening socket, its acceptor and its connections (iap_relay.cc)

 private:
  explicit IapRelay(std::unique_ptr<Listener> listener);
  std::unique_ptr<Listener> listener_;
};

}  // namespace tputrain::emulator
