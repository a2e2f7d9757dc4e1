#include "tputrain/gcp/iap/tunnel_protocol.h"

#include <cstdio>

namespace tputrain::gcp::iap {
namespace {

void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

uint64_t GetBigEndian(std::string_view in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(in[i]);
  return value;
}

std::string Tagged(FrameTag tag) {
  std::string out;
  PutBigEndian(out, static_cast<uint16_t>(tag), 2);
  return out;
}

std::string WithLength(FrameTag tag, std::string_view bytes) {
  std::string out = Tagged(tag);
  PutBigEndian(out, bytes.size(), 4);
  out.append(bytes);
  return out;
}

std::string WithCount(FrameTag tag, uint64_t count) {
  std::string out = Tagged(tag);
  PutBigEndian(out, count, 8);
  return out;
}

core::Error Malformed(std::string message) {
  auto error = core::Error::Make(core::ErrorKind::kInternal, "IAP tunnel: malformed frame from the relay: " + message);
  error.where = "iap-tunnel";
  return error;
}

// The uint32 length, the bytes it announces, and nothing after them.
core::Result<std::string> LengthPrefixed(FrameTag tag, std::string_view body, size_t bound) {
  std::string name(FrameName(tag));
  if (body.size() < 4) return core::Fail(Malformed(name + " frame shorter than its 4-byte length"));
  uint64_t length = GetBigEndian(body, 4);
  if (length > bound) {
    return core::Fail(Malformed(name + " frame announces " + std::to_string(length) + " bytes, more than the " +
                                std::to_string(bound) + " allowed"));
  }
  if (body.size() - 4 != length) {
    return core::Fail(Malformed(name + " frame announces " + std::to_string(length) + " bytes but carries " +
                                std::to_string(body.size() - 4)));
  }
  return std::string(body.substr(4));
}

core::Result<uint64_t> Count(FrameTag tag, std::string_view body) {
  if (body.size() != 8) {
    return core::Fail(Malformed(std::string(FrameName(tag)) + " frame has " + std::to_string(body.size()) +
                                " bytes after its tag, not 8"));
  }
  return GetBigEndian(body, 8);
}

}  // namespace

std::string EncodeConnectSuccessSid(std::string_view sid) { return WithLength(FrameTag::kConnectSuccessSid, sid); }
std::string EncodeReconnectSuccessAck(uint64_t bytes_received) {
  return WithCount(FrameTag::kReconnectSuccessAck, bytes_received);
}
std::string EncodeData(std::string_view payload) { return WithLength(FrameTag::kData, payload); }
std::string EncodeAck(uint64_t total_received) { return WithCount(FrameTag::kAck, total_received); }

core::Result<Frame> DecodeFrame(std::string_view message) {
  if (message.size() < 2) return core::Fail(Malformed("a message of " + std::to_string(message.size()) + " bytes"));
  Frame frame;
  auto tag = static_cast<uint16_t>(GetBigEndian(message, 2));
  auto body = message.substr(2);
  switch (tag) {
    case static_cast<uint16_t>(FrameTag::kConnectSuccessSid):
    case static_cast<uint16_t>(FrameTag::kData): {
      frame.tag = static_cast<FrameTag>(tag);
      auto bytes = LengthPrefixed(frame.tag, body, frame.tag == FrameTag::kData ? kMaxDataPayload : kMaxSidLength);
      if (!bytes) return core::Fail(bytes.error());
      frame.bytes = std::move(*bytes);
      return frame;
    }
    case static_cast<uint16_t>(FrameTag::kReconnectSuccessAck):
    case static_cast<uint16_t>(FrameTag::kAck): {
      frame.tag = static_cast<FrameTag>(tag);
      auto count = Count(frame.tag, body);
      if (!count) return core::Fail(count.error());
      frame.count = *count;
      return frame;
    }
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%04x", tag);
      return core::Fail(Malformed(std::string("unknown tag ") + hex));
    }
  }
}

std::string_view FrameName(FrameTag tag) {
  switch (tag) {
    case FrameTag::kConnectSuccessSid:
      return "CONNECT_SUCCESS_SID";
    case FrameTag::kReconnectSuccessAck:
      return "RECONNECT_SUCCESS_ACK";
    case FrameTag::kData:
      return "DATA";
    case FrameTag::kAck:
      return "ACK";
  }
  return "UNKNOWN";
}

}  // namespace tputrain::gcp::iap
