#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "tputrain/core/result.h"
#include "websocket_server.h"

// The relay's side of IAP TCP forwarding (/v4, as gcloud's iap_tunnel_websocket speaks it): what
// an upgrade must carry, and the tunnel frames inside binary WebSocket messages, each a
// big-endian uint16 tag first.
namespace tputrain::emulator {

inline constexpr char kIapSubprotocol[] = "relay.tunnel.cloudproxy.app";
inline constexpr char kIapOrigin[] = "bot:iap-tunneler";
inline constexpr size_t kIapMaxData = 16384;
// The relay acknowledges once this much more came from the client since its last ACK.
inline constexpr uint64_t kIapAckThreshold = 2 * kIapMaxData;

// Close codes the relay ends a WebSocket with after the upgrade.
inline constexpr int kIapCloseCannotConnect = 4003;    // nothing listens at the instance's port
inline constexpr int kIapCloseReauthenticate = 4004;   // resumable: reconnect with a fresh token
inline constexpr int kIapCloseUnknownSession = 4030;   // a reconnect names no session held
inline constexpr int kIapCloseUnknownInstance = 4047;  // "Failed to lookup instance", as Google says

enum class IapTag : uint16_t { kConnectSuccessSid = 1, kReconnectSuccessAck = 2, kData = 4, kAck = 7 };

enum class IapEndpoint { kConnect, kReconnect };

struct IapUpgrade {
  IapEndpoint endpoint = IapEndpoint::kConnect;
  // connect: project, zone, instance, port, interface; reconnect: sid, ack, zone.
  std::string project, zone, instance, network_interface, sid;
  int port = 0;
  uint64_t ack = 0;
};

struct HttpRefusal {
  int status = 400;
  std::string reason;  // the status line's
  std::string text;
};

// The upgrade as the relay accepts it: a WebSocket GET of /v4/connect or /v4/reconnect with a
// bearer token (any: the emulator checks none), Origin bot:iap-tunneler, the subprotocol offered
// and the endpoint's query parameters; otherwise the refusal to answer with.
std::variant<IapUpgrade, HttpRefusal> CheckIapUpgrade(const UpgradeRequest& request);

std::string EncodeIapSid(std::string_view sid);
std::string EncodeIapData(std::string_view bytes);
std::string EncodeIapCount(IapTag tag, uint64_t count);  // ACK, RECONNECT_SUCCESS_ACK

// A frame from the client: DATA (≤ 16384 bytes, length as declared) or ACK; anything else is an
// error to close the WebSocket for.
struct IapClientFrame {
  IapTag tag = IapTag::kData;
  std::string data;
  uint64_t ack = 0;
};
core::Result<IapClientFrame> DecodeIapClientFrame(std::string_view payload);

}  // namespace tputrain::emulator
