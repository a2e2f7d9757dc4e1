#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::serving {

// Splits a stream of JSON values sent back to back with no separator, as jetstream-http streams
// its tokens ({...}{...}{...}), into whole values as their bytes arrive in arbitrary chunks.
// Whitespace between values is skipped; strings (with escapes) may hold braces.
class JsonValueSplitter {
 public:
  // The values `chunk` completes, in order; a value split across chunks comes out with the
  // chunk that ends it. Fails on bytes that cannot start a JSON object or array, or when one
  // value grows past `max_value_bytes` (a server that never closes its brace).
  core::Result<std::vector<std::string>> Feed(std::string_view chunk);
  // True when no value is half received.
  bool idle() const { return pending_.empty(); }

  static constexpr std::size_t kMaxValueBytes = 1 << 20;

 private:
  std::string pending_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace tputrain::serving
