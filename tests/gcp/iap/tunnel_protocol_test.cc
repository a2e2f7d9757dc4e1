#include "tputrain/gcp/iap/tunnel_protocol.h"

#include <catch2/catch.hpp>

namespace tputrain::gcp::iap {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values) out.push_back(static_cast<char>(value));
  return out;
}

TEST_CASE("frames are encoded with a big-endian tag, length or count, as gcloud's relay expects") {
  CHECK(EncodeConnectSuccessSid("ab") == Bytes({0, 1, 0, 0, 0, 2, 'a', 'b'}));
  CHECK(EncodeReconnectSuccessAck(0x0102030405060708ull) == Bytes({0, 2, 1, 2, 3, 4, 5, 6, 7, 8}));
  CHECK(EncodeData("xyz") == Bytes({0, 4, 0, 0, 0, 3, 'x', 'y', 'z'}));
  CHECK(EncodeAck(65537) == Bytes({0, 7, 0, 0, 0, 0, 0, 1, 0, 1}));
}

TEST_CASE("each frame decodes to what was encoded") {
  auto sid = DecodeFrame(EncodeConnectSuccessSid("session-1"));
  REQUIRE(sid.has_value());
  CHECK(sid->tag == FrameTag::kConnectSuccessSid);
  CHECK(sid->bytes == "session-1");

  std::string payload(kMaxDataPayload, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  auto data = DecodeFrame(EncodeData(payload));
  REQUIRE(data.has_value());
  CHECK(data->tag == FrameTag::kData);
  CHECK(data->bytes == payload);

  auto ack = DecodeFrame(EncodeAck(~0ull));
  REQUIRE(ack.has_value());
  CHECK(ack->tag == FrameTag::kAck);
  CHECK(ack->count == ~0ull);

  auto reconnect = DecodeFrame(EncodeReconnectSuccessAck(12345));
  REQUIRE(reconnect.has_value());
  CHECK(reconnect->tag == FrameTag::kReconnectSuccessAck);
  CHECK(reconnect->count == 12345);
}

TEST_CASE("an empty DATA frame is a frame") {
  auto data = DecodeFrame(EncodeData(""));
  REQUIRE(data.has_value());
  CHECK(data->bytes.empty());
}

void CheckRefused(const std::string& message, const std::string& expected) {
  auto frame = DecodeFrame(message);
  REQUIRE_FALSE(frame.has_value());
  CHECK(frame.error().kind == core::ErrorKind::kInternal);
  CHECK(frame.error().where == "iap-tunnel");
  INFO(frame.error().message);
  CHECK(frame.error().message.find(expected) != std::string::npos);
}

TEST_CASE("malformed frames are refused with what was wrong") {
  CheckRefused("", "a message of 0 bytes");
  CheckRefused(Bytes({0}), "a message of 1 bytes");
  CheckRefused(Bytes({0, 9}), "unknown tag 0x0009");
  CheckRefused(Bytes({0x12, 0x34, 0, 0}), "unknown tag 0x1234");
  CheckRefused(Bytes({0, 4, 0, 0}), "DATA frame shorter than its 4-byte length");
  CheckRefused(Bytes({0, 4, 0, 0, 0, 3, 'a'}), "DATA frame announces 3 bytes but carries 1");
  CheckRefused(EncodeData("abc") + "d", "DATA frame announces 3 bytes but carries 4");
  CheckRefused(Bytes({0, 4, 0, 0, 0x40, 1}), "DATA frame announces 16385 bytes, more than the 16384 allowed");
  CheckRefused(Bytes({0, 4, 0xff, 0xff, 0xff, 0xff}), "announces 4294967295 bytes");
  CheckRefused(Bytes({0, 1, 0, 0, 0x10, 1}), "CONNECT_SUCCESS_SID frame announces 4097 bytes");
  CheckRefused(Bytes({0, 7, 0, 0, 0, 1}), "ACK frame has 4 bytes after its tag, not 8");
  CheckRefused(EncodeReconnectSuccessAck(1) + "x", "RECONNECT_SUCCESS_ACK frame has 9 bytes after its tag");
}

}  // namespace
}  // namespace tputrain::gcp::iap
