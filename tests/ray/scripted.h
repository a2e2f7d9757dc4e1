#pragma once

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "tputrain/http/websocket.h"

// A scripted WebSocket connector, for behaviour a real head cannot be made to show on demand: a
// dropped socket, a refused upgrade. (HTTP and time: testing::FakeTransport and FakeClock.)
namespace tputrain::ray::testing {

// Each Connect plays the next script: a list of messages, then (optionally) a close code.
class ScriptedConnector final : public http::WebSocketConnector {
 public:
  struct Script {
    std::vector<std::string> frames;
    int close_code = 1000;   // 0: the connection errors out instead of closing
    int refuse_status = -1;  // >= 0: Connect fails with this HTTP status (0: no reply)
    bool stall = false;      // after the frames, nothing: neither a message nor a close
  };
  std::deque<Script> scripts;
  int connects = 0;
  // Called with the wait of each Receive that a stalled script lets pass with nothing (a test
  // moves its fake clock by it).
  std::function<void(std::chrono::milliseconds)> on_quiet;

  core::Result<std::unique_ptr<http::WebSocketConnection>> Connect(const std::string&, const http::Headers&) override {
    ++connects;
    if (scripts.empty()) return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "no script"));
    Script script = std::move(scripts.front());
    scripts.pop_front();
    if (script.refuse_status >= 0) {
      auto error = core::Error::Make(core::ErrorKind::kUnavailable, "refused");
      error.http_status = script.refuse_status;
      return core::Fail(error);
    }
    return std::unique_ptr<http::WebSocketConnection>(std::make_unique<Connection>(std::move(script), on_quiet));
  }

 private:
  class Connection final : public http::WebSocketConnection {
   public:
    Connection(Script script, std::function<void(std::chrono::milliseconds)> on_quiet)
        : script_(std::move(script)), on_quiet_(std::move(on_quiet)) {}
    core::Result<std::optional<http::WebSocketMessage>> Receive(std::chrono::milliseconds wait) override {
      if (next_ < script_.frames.size()) {
        return std::optional<http::WebSocketMessage>(
            http::WebSocketMessage{http::WebSocketMessage::Type::kText, script_.frames[next_++], 0});
      }
      if (script_.stall) {
        if (on_quiet_) on_quiet_(wait);
        return std::optional<http::WebSocketMessage>();
      }
      if (script_.close_code == 0) return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "reset"));
      return std::optional<http::WebSocketMessage>(
          http::WebSocketMessage{http::WebSocketMessage::Type::kClose, "", script_.close_code});
    }
    core::Status SendText(std::string_view) override { return {}; }
    core::Status SendBinary(std::string_view) override { return {}; }
    void Interrupt() override {}
    void Close(int) override {}

   private:
    Script script_;
    std::function<void(std::chrono::milliseconds)> on_quiet_;
    size_t next_ = 0;
  };
};

}  // namespace tputrain::ray::testing
