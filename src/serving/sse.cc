#include "sse.h"

namespace tputrain::serving {
namespace {

core::Error TooLong() {
  return core::Error::Make(core::ErrorKind::kInternal, "a server-sent event passed 1 MiB without ending");
}

}  // namespace

core::Result<std::vector<std::string>> ServerSentEvents::Feed(std::string_view chunk) {
  std::vector<std::string> events;
  for (char c : chunk) {
    // Lines end in "\r\n", "\n" or "\r".
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      if (auto taken = TakeLine(line_, events); !taken) return core::Fail(taken.error());
      line_.clear();
      continue;
    }
    if (line_.size() >= kMaxLineBytes) return core::Fail(TooLong());
    line_ += c;
  }
  return events;
}

core::Result<std::vector<std::string>> ServerSentEvents::Finish() {
  std::vector<std::string> events;
  if (!line_.empty()) {
    if (auto taken = TakeLine(line_, events); !taken) return core::Fail(taken.error());
    line_.clear();
  }
  if (auto taken = TakeLine("", events); !taken) return core::Fail(taken.error());
  return events;
}

core::Status ServerSentEvents::TakeLine(std::string_view line, std::vector<std::string>& events) {
  if (line.empty()) {
    if (has_data_) events.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return {};
  }
  if (line.front() == ':') return {};
  const auto colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  if (field != "data") return {};
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (has_data_) data_ += '\n';
  if (data_.size() + value.size() > kMaxLineBytes) return core::Fail(TooLong());
  data_.append(value);
  has_data_ = true;
  return {};
}

}  // namespace tputrain::serving
