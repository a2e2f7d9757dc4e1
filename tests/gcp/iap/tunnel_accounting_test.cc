#include "tputrain/gcp/iap/tunnel_accounting.h"

#include <catch2/catch.hpp>

namespace tputrain::gcp::iap {
namespace {

std::string Joined(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& piece : pieces) out += piece;
  return out;
}

TEST_CASE("sent data is held until the relay acknowledges it, and what is left is resent in order") {
  UnackedData unacked;
  unacked.Append("hello ");
  unacked.Append("");
  unacked.Append("tunnel ");
  unacked.Append("world");
  CHECK(unacked.sent() == 18);
  CHECK(unacked.pending() == 18);

  REQUIRE(unacked.Acknowledge(3).has_value());  // inside the first chunk
  CHECK(Joined(unacked.Pieces(4)) == "lo tunnel world");
  REQUIRE(unacked.Acknowledge(13).has_value());  // across a chunk boundary
  CHECK(unacked.acked() == 13);
  CHECK(unacked.pending() == 5);
  CHECK(unacked.Pieces(100) == std::vector<std::string>{"world"});
  REQUIRE(unacked.Acknowledge(13).has_value());  // the same total again changes nothing
  REQUIRE(unacked.Acknowledge(18).has_value());
  CHECK(unacked.Pieces(100).empty());
  CHECK(unacked.sent() == 18);
}

TEST_CASE("resent pieces are at most one DATA frame each") {
  UnackedData unacked;
  unacked.Append(std::string(40000, 'a'));
  unacked.Append(std::string(10, 'b'));
  REQUIRE(unacked.Acknowledge(5).has_value());
  auto pieces = unacked.Pieces(16384);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].size() == 16384);
  CHECK(pieces[1].size() == 16384);
  CHECK(pieces[2] == std::string(40000 - 5 - 2 * 16384, 'a') + std::string(10, 'b'));
}

TEST_CASE("an acknowledgement backwards or beyond what was sent is a protocol error") {
  UnackedData unacked;
  unacked.Append("abcdef");
  REQUIRE(unacked.Acknowledge(4).has_value());
  auto backwards = unacked.Acknowledge(3);
  REQUIRE_FALSE(backwards.has_value());
  CHECK(backwards.error().message.find("acknowledged 3 bytes, but 4 were already acknowledged") != std::string::npos);
  auto beyond = unacked.Acknowledge(7);
  REQUIRE_FALSE(beyond.has_value());
  CHECK(beyond.error().message.find("6 sent") != std::string::npos);
  CHECK(unacked.acked() == 4);
  CHECK(Joined(unacked.Pieces(16384)) == "ef");
}

TEST_CASE("an ACK is owed once more than the threshold came in since the last one") {
  ReceivedData received(2 * 16384);
  received.Add(16384);
  received.Add(16384);
  CHECK_FALSE(received.AckDue());  // exactly 2 × 16384 is not more
  received.Add(1);
  REQUIRE(received.AckDue());
  CHECK(received.TakeAck() == 32769);
  CHECK_FALSE(received.AckDue());
  received.Add(32768);
  CHECK_FALSE(received.AckDue());
  received.Add(1);
  CHECK(received.AckDue());
  CHECK(received.total() == 65538);
}

}  // namespace
}  // namespace tputrain::gcp::iap
