#include "json_stream.h"

namespace tputrain::serving {

core::Result<std::vector<std::string>> JsonValueSplitter::Feed(std::string_view chunk) {
  std::vector<std::string> values;
  for (char c : chunk) {
    if (depth_ == 0) {
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (c != '{' && c != '[') {
        return core::Fail(core::Error::Make(
            core::ErrorKind::kInternal, std::string("the stream holds '") + c + "' where a JSON object should start"));
      }
    }
    pending_ += c;
    if (pending_.size() > kMaxValueBytes) {
      return core::Fail(core::Error::Make(core::ErrorKind::kInternal, "a streamed JSON value passed 1 MiB unclosed"));
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        values.push_back(std::move(pending_));
        pending_.clear();
      }
    }
  }
  return values;
}

}  // namespace tputrain::serving
