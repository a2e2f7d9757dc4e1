#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

// The frames of IAP TCP forwarding (the relay at tunnel.cloudproxy.app, protocol /v4): each is
// one binary WebSocket message that starts with a big-endian uint16 tag. Pure: no I/O.
namespace tputrain::gcp::iap {

inline constexpr size_t kMaxDataPayload = 16384;  // the most one DATA frame may carry
inline constexpr size_t kMaxSidLength = 4096;     // a session id longer than this is refused

enum class FrameTag : uint16_t {
  kConnectSuccessSid = 0x0001,    // + uint32 length + session id: the relay's first message
  kReconnectSuccessAck = 0x0002,  // + uint64: bytes the relay had received before the reconnect
  kData = 0x0004,                 // + uint32 length + at most kMaxDataPayload bytes
  kAck = 0x0007,                  // + uint64: total bytes the sender has received
};

struct Frame {
  FrameTag tag = FrameTag::kData;
  std::string bytes;   // kConnectSuccessSid: the session id; kData: the payload
  uint64_t count = 0;  // kReconnectSuccessAck, kAck
};

std::string EncodeConnectSuccessSid(std::string_view sid);
std::string EncodeReconnectSuccessAck(uint64_t bytes_received);
// `payload` holds at most kMaxDataPayload bytes; callers split larger writes.
std::string EncodeData(std::string_view payload);
std::string EncodeAck(uint64_t total_received);

// One whole message as one frame. A message that is too short, too long for its lengths, has
// bytes after its frame, carries an unknown tag, or exceeds a bound is an error (kInternal,
// where "iap-tunnel") whose message names the tag and what was wrong.
core::Result<Frame> DecodeFrame(std::string_view message);

std::string_view FrameName(FrameTag tag);  // "DATA", "ACK", ...

}  // namespace tputrain::gcp::iap
