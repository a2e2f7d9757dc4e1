#include "tputrain/gcp/iap/tunnel_accounting.h"

#include <algorithm>
#include <utility>

namespace tputrain::gcp::iap {

void UnackedData::Append(std::string_view bytes) {
  if (bytes.empty()) return;
  chunks_.emplace_back(bytes);
  pending_ += bytes.size();
}

core::Status UnackedData::Acknowledge(uint64_t total) {
  if (total < acked_ || total > sent()) {
    auto error = core::Error::Make(core::ErrorKind::kInternal,
                                   "IAP tunnel: the relay acknowledged " + std::to_string(total) + " bytes, but " +
                                       std::to_string(acked_) + " were already acknowledged and " +
                                       std::to_string(sent()) + " sent");
    error.where = "iap-tunnel";
    return core::Fail(error);
  }
  uint64_t drop = total - acked_;
  acked_ = total;
  pending_ -= drop;
  // Whole chunks leave the deque; a partly acknowledged one keeps an offset, so an ACK never
  // copies the bytes still held.
  while (drop > 0) {
    size_t left_in_front = chunks_.front().size() - front_offset_;
    if (drop < left_in_front) {
      front_offset_ += drop;
      break;
    }
    drop -= left_in_front;
    chunks_.pop_front();
    front_offset_ = 0;
  }
  return {};
}

std::vector<std::string> UnackedData::Pieces(size_t max_piece) const {
  std::vector<std::string> pieces;
  std::string piece;
  size_t offset = front_offset_;
  for (const auto& chunk : chunks_) {
    std::string_view rest = std::string_view(chunk).substr(offset);
    offset = 0;
    while (!rest.empty()) {
      size_t take = std::min(rest.size(), max_piece - piece.size());
      piece.append(rest.substr(0, take));
      rest.remove_prefix(take);
      if (piece.size() == max_piece) pieces.push_back(std::exchange(piece, {}));
    }
  }
  if (!piece.empty()) pieces.push_back(std::move(piece));
  return pieces;
}

}  // namespace tputrain::gcp::iap
