#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/http/websocket.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {

// Receives each new piece of the job's driver log, in order, exactly once.
using LogTextHandler = std::function<void(std::string_view text)>;

struct FollowOptions {
  // Bytes of the log already delivered (e.g. by an earlier `job logs`); they are skipped.
  uint64_t start_offset = 0;
  // Tail reconnects (each replays the log from byte 0) before falling back to polling.
  int max_reconnects = 3;
  bool use_websocket = true;
  std::chrono::milliseconds poll_initial{250};
  std::chrono::milliseconds poll_max{2000};
  // Status reads that find the head unreachable (no answer, 502-504) are retried this many
  // times, poll_max apart once backed off: about two minutes for an API server or head restart.
  int max_unreachable_polls = 64;
  // A tail that delivers nothing this long reads the job's status, then twice as long after each
  // such read, up to tail_status_max: a stream that stalls (a frame announced and never sent, a
  // proxy holding a dead connection) cannot outlast its job.
  std::chrono::milliseconds tail_status_first{5'000};
  std::chrono::milliseconds tail_status_max{30'000};
  const core::CancelToken* cancel = nullptr;
  // Reconnects and the fall-back to polling, for the user's stderr.
  std::function<void(std::string_view)> on_notice;
};

// Follows a job's log until the job is terminal: the log-tail WebSocket first; after a drop that
// is not a normal close it reconnects and skips the replayed bytes by offset; when the socket
// cannot be used at all (no upgrade, or a frame it cannot read: not UTF-8, too large) it polls
// GET /api/jobs/{id}/logs with backoff. A quiet tail reads the job's status now and then. A tail
// that ended with the job is checked against GET .../logs once, which delivers whatever the
// stream missed.
class LogFollower {
 public:
  LogFollower(JobsClient& client, http::WebSocketConnector& connector, core::Clock& clock, core::Sleeper& sleeper,
              FollowOptions options = {});

  // Returns the job's final details, or kCancelled when the cancel token fired (the job keeps
  // running), or the error that made following impossible.
  core::Result<JobDetails> Follow(const std::string& id, const LogTextHandler& on_text);

  uint64_t offset() const { return offset_; }

 private:
  enum class TailEnd { kClosedNormally, kDropped, kUnusable, kCancelled, kJobEnded };
  // kJobEnded: a quiet tail's status read found the job terminal (`ended` holds it).
  TailEnd Tail(const std::string& id, const LogTextHandler& on_text, core::Error& error,
               std::optional<JobDetails>& ended);
  core::Result<JobDetails> Poll(const std::string& id, const LogTextHandler& on_text);
  core::Result<JobDetails> GetRidingOutRestarts(const std::string& id);
  template <typename Call>
  auto RidingOutRestarts(const Call& call) -> decltype(call());
  core::Status CatchUp(const std::string& id, const JobDetails& job, const LogTextHandler& on_text, bool stream_closed);
  void Deliver(std::string_view whole_stream_piece, uint64_t piece_start, const LogTextHandler& on_text);
  bool cancelled() const;

  JobsClient& client_;
  http::WebSocketConnector& connector_;
  core::Clock& clock_;
  core::Sleeper& sleeper_;
  FollowOptions options_;
  uint64_t offset_ = 0;
};

}  // namespace tputrain::ray
