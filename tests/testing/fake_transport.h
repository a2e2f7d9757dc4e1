#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "testing/fake_clock.h"
#include "tputrain/http/transport.h"

namespace tputrain::testing {

// The one fake of http::Transport: it records every request and answers from a script, for
// request shapes and transport behaviour (API behaviour is tested against the emulator, Ray and
// the API server themselves). A request is answered by, in this order: the next reply queued
// with Reply/Lose (whatever it asks for); the first rule of On whose method and URL part match it
// (its replies in turn, the last one repeating); the transport it forwards to, when it was made
// with one (a real server: the fake then only records); or the Otherwise reply (404 "not
// scripted" unless set).
class FakeTransport final : public http::Transport {
 public:
  FakeTransport() = default;
  explicit FakeTransport(http::Transport& forward) : forward_(&forward) {}

  void On(const std::string& method, const std::string& url_part, std::vector<core::Result<http::Response>> replies) {
    std::lock_guard lock(mutex_);
    rules_.push_back({method, url_part, {replies.begin(), replies.end()}});
  }
  void Reply(core::Result<http::Response> reply) {
    std::lock_guard lock(mutex_);
    queued_.push_back(std::move(reply));
  }
  void Reply(int status, std::string body, http::Headers headers = {}) {
    Reply(http::Response{status, std::move(headers), std::move(body)});
  }
  // The next request gets no reply (a connection reset).
  void Lose() { Reply(core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "connection reset"))); }
  void Otherwise(core::Result<http::Response> reply) {
    std::lock_guard lock(mutex_);
    otherwise_ = std::move(reply);
  }
  // Forgets the queued replies and the requests seen (the rules stay).
  void Clear() {
    std::lock_guard lock(mutex_);
    queued_.clear();
    requests_.clear();
  }

  core::Result<http::Response> Send(const http::Request& request) override {
    if (auto reply = Scripted(request)) return *reply;
    return forward_->Send(request);
  }
  core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& on_chunk) override {
    auto reply = Scripted(request);
    if (!reply) return forward_->Stream(request, on_chunk);
    if (!*reply || !(*reply)->ok()) return *reply;
    std::string body = std::move((*reply)->body);
    (*reply)->body.clear();
    if (!body.empty()) on_chunk(body);
    return *reply;
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
  struct Rule {
    std::string method;
    std::string url_part;
    std::deque<core::Result<http::Response>> replies;
  };

  // Records the request; the reply the script has for it, or nullopt to forward it.
  std::optional<core::Result<http::Response>> Scripted(const http::Request& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (!queued_.empty()) {
      auto reply = std::move(queued_.front());
      queued_.pop_front();
      return reply;
    }
    for (auto& rule : rules_) {
      if (rule.method != request.method || request.url.find(rule.url_part) == std::string::npos) continue;
      auto reply = rule.replies.front();
      if (rule.replies.size() > 1) rule.replies.pop_front();
      return reply;
    }
    if (forward_ != nullptr) return std::nullopt;
    return otherwise_;
  }

  std::mutex mutex_;
  http::Transport* forward_ = nullptr;
  std::deque<core::Result<http::Response>> queued_;
  std::vector<Rule> rules_;
  core::Result<http::Response> otherwise_ =
      http::Response{404, {}, R"({"error":{"code":404,"message":"not scripted","status":"NOT_FOUND"}})"};
  std::vector<http::Request> requests_;
};

inline http::Response JsonReply(int status, const std::string& body) { return http::Response{status, {}, body}; }

}  // namespace tputrain::testing
