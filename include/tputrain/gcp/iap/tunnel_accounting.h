#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

// The byte counts both ends of an IAP tunnel keep so a session survives a reconnect: what we sent
// and the relay has not yet acknowledged (resent after a reconnect), and what we received and have
// not yet acknowledged. Pure: no I/O.
namespace tputrain::gcp::iap {

class UnackedData {
 public:
  void Append(std::string_view bytes);
  // The relay has received `total` bytes since the session began. Less than already acknowledged,
  // or more than was ever sent, is a protocol error (kInternal) and changes nothing.
  core::Status Acknowledge(uint64_t total);

  uint64_t sent() const { return acked_ + pending_; }
  uint64_t acked() const { return acked_; }
  uint64_t pending() const { return pending_; }
  // What is held, in order, cut into pieces of at most `max_piece` bytes (the DATA frames to resend).
  std::vector<std::string> Pieces(size_t max_piece) const;

 private:
  std::deque<std::string> chunks_;
  size_t front_offset_ = 0;  // bytes of chunks_.front() already acknowledged
  uint64_t acked_ = 0;
  uint64_t pending_ = 0;
};

class ReceivedData {
 public:
  // An ACK is owed once more than `threshold` bytes came in since the last one (gcloud: 2 × 16384).
  explicit ReceivedData(uint64_t threshold) : threshold_(threshold) {}
  void Add(size_t bytes) { total_ += bytes; }
  bool AckDue() const { return total_ - acked_ > threshold_; }
  // The total to send in an ACK frame; later AckDue() counts from it.
  uint64_t TakeAck() { return acked_ = total_; }
  uint64_t total() const { return total_; }

 private:
  uint64_t threshold_;
  uint64_t total_ = 0;
  uint64_t acked_ = 0;
};

}  // namespace tputrain::gcp::iap
