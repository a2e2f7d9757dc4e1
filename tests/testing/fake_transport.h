#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "tputrain/core/clock.h"
#include "tputrain/core/runtime.h"
#include "tputrain/http/transport.h"

namespace tputrain::testing {

// Records every request and answers from a script of (method, URL substring) → responses, in
// order; for request shapes and retry logic only (API behaviour is tested against the emulator).
class FakeTransport final : public http::Transport {
 public:
  struct Rule {
    std::string method;
    std::string url_part;
    std::deque<core::Result<http::Response>> replies;  // the last one repeats
  };

  void On(const std::string& method, const std::string& url_part, std::vector<core::Result<http::Response>> replies) {
    std::lock_guard lock(mutex_);
    rules_.push_back({method, url_part, {replies.begin(), replies.end()}});
  }

  core::Result<http::Response> Send(const http::Request& request) override {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    for (auto& rule : rules_) {
      if (rule.method != request.method || request.url.find(rule.url_part) == std::string::npos) continue;
      auto reply = rule.replies.front();
      if (rule.replies.size() > 1) rule.replies.pop_front();
      return reply;
    }
    return http::Response{404, {}, R"({"error":{"code":404,"message":"not scripted","status":"NOT_FOUND"}})"};
  }

  std::vector<http::Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  int Count(const std::string& method, const std::string& url_part) {
    int count = 0;
    for (const auto& request : requests()) {
      if (request.method == method && request.url.find(url_part) != std::string::npos) ++count;
    }
    return count;
  }

 private:
  std::mutex mutex_;
  std::vector<Rule> rules_;
  std::vector<http::Request> requests_;
};

inline http::Response JsonReply(int status, const std::string& body) { return http::Response{status, {}, body}; }

// Time that moves only when slept through.
class FakeClock final : public core::Clock, public core::Sleeper {
 public:
  TimePoint Now() override {
    std::lock_guard lock(mutex_);
    return TimePoint{} + now_;
  }
  std::chrono::system_clock::time_point WallNow() override {
    std::lock_guard lock(mutex_);
    return std::chrono::system_clock::time_point{} + now_;
  }
  bool Sleep(std::chrono::milliseconds duration) override {
    std::lock_guard lock(mutex_);
    sleeps_.push_back(duration);
    now_ += duration;
    return true;
  }
  std::vector<std::chrono::milliseconds> sleeps() {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  std::mutex mutex_;
  std::chrono::milliseconds now_{0};
  std::vector<std::chrono::milliseconds> sleeps_;
};

// A runtime on fake time: what the CLI's Stack builds for a workflow, for tests.
inline core::Runtime RuntimeOn(FakeClock& clock, core::Reporter& reporter, const core::CancelToken* cancel = nullptr) {
  return {{clock, clock, cancel}, reporter};
}

}  // namespace tputrain::testing
