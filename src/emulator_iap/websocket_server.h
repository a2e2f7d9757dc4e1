#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

// The server side of RFC 6455 over any byte stream: the upgrade request read from its head, the
// accept key, and frames (the client's masked, the server's not). No I/O here.
namespace tputrain::emulator {

enum WebSocketOpcode : uint8_t {
  kWsContinuation = 0x0,
  kWsText = 0x1,
  kWsBinary = 0x2,
  kWsClose = 0x8,
  kWsPing = 0x9,
  kWsPong = 0xA,
};

struct UpgradeRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;    // percent-decoded
  std::map<std::string, std::string> headers;  // names lower-cased
  bool IsWebSocket() const;
};

// The request line and headers of an HTTP/1.1 head (up to and without the blank line); nullopt
// when it is not one.
std::optional<UpgradeRequest> ParseUpgradeRequest(std::string_view head);

// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (RFC 6455 §4.2.2).
std::string WebSocketAcceptKey(std::string_view client_key);

struct WebSocketFrame {
  bool fin = true;
  uint8_t opcode = kWsBinary;
  std::string payload;  // unmasked
};

// One unfragmented server frame: FIN set, no mask.
std::string EncodeServerFrame(uint8_t opcode, std::string_view payload);
// A close frame: the code big-endian, then the reason (cut to fit a control frame).
std::string EncodeCloseFrame(int code, std::string_view reason);
// The close code of a close frame's payload (1005 when it has none).
int CloseCode(std::string_view payload);

// Takes the first whole client frame off the front of `buffer`: nullopt while it is incomplete; an
// error (to answer with close 1002) when it is unmasked, has reserved bits, or its payload exceeds
// `max_payload`.
core::Result<std::optional<WebSocketFrame>> TakeClientFrame(std::string& buffer, size_t max_payload);

}  // namespace tputrain::emulator
