#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "iap_relay_protocol.h"
#include "iap_relay_sessions.h"

namespace tputrain::emulator {

// What every connection of one relay shares.
struct IapRelayContext {
  SSL_CTX* tls = nullptr;
  IapRelaySessions* sessions = nullptr;
  // The address (IPv4 text) of the instance an upgrade names, if one of the emulator's READY TPU
  // hosts has that instance name in that project and zone.
  std::function<std::optional<std::string>(const IapUpgrade&)> resolve;
  const std::atomic<bool>* stopping = nullptr;
  // Bumped by the admin endpoint: every WebSocket carrying a session then closes with 4004.
  const std::atomic<uint64_t>* reauthentications = nullptr;
};

// Serves one accepted TCP connection to the relay, from the TLS handshake to its end: the upgrade
// (refused with an HTTP status), then /v4/connect or /v4/reconnect. Takes ownership of `fd`.
void ServeIapRelayConnection(int fd, const IapRelayContext& context);

}  // namespace tputrain::emulator
