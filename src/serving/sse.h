#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

// Server-sent events (the WHATWG "event stream" format), as vLLM's OpenAI server streams its
// chunks: `data: {...}` lines, a blank line ending each event, `data: [DONE]` last. Bytes are
// read as they arrive in chunks of any size; an event comes out with the chunk that ends it, so
// a caller prints each token as soon as its event is whole and never holds the whole answer.
namespace tputrain::serving {

class ServerSentEvents {
 public:
  // The data of each event `chunk` completes, in order (several `data:` lines of one event
  // joined by '\n'). Comments (`:...`) and the other fields (event, id, retry) are skipped; an
  // event with no data is no event. Fails when a line or an event's data passes kMaxLineBytes
  // (a server that never ends its line).
  core::Result<std::vector<std::string>> Feed(std::string_view chunk);
  // At the end of the body: the data of an event the server did not end with a blank line.
  core::Result<std::vector<std::string>> Finish();

  static constexpr std::size_t kMaxLineBytes = 1 << 20;

 private:
  core::Status TakeLine(std::string_view line, std::vector<std::string>& events);

  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last chunk ended in '\r': a '\n' next is the same line end
};

}  // namespace tputrain::serving
