#include "tputrain/ray/log_follower.h"

#include <algorithm>
#include <optional>

#include "tputrain/core/poll_seen.h"

namespace tputrain::ray {
namespace {

constexpr std::chrono::milliseconds kReceiveSlice{200};  // how often a quiet tail checks Ctrl-C

// No answer, or a proxy's 502/503/504: the head or the API server in front of it is restarting
// (a GKE control-plane upgrade, a head pod rescheduled), which a long follow should ride out.
bool Unreachable(const core::Error& error) {
  if (error.http_status >= 502 && error.http_status <= 504) return true;
  return error.http_status == 0 &&
         (error.kind == core::ErrorKind::kUnavailable || error.kind == core::ErrorKind::kDeadlineExceeded);
}

// The close codes of a connection the client failed (RFC 6455 7.4.1): every reconnect replays the
// same log, so it would fail at the same frame again.
std::optional<std::string> Unreadable(int close_code) {
  switch (close_code) {
    case 1002:
      return "a frame broke the WebSocket protocol";
    case 1007:
      return "a text frame was not UTF-8";
    case 1009:
      return "a frame was larger than tputrain takes";
    default:
      return std::nullopt;
  }
}

}  // namespace

LogFollower::LogFollower(JobsClient& client, http::WebSocketConnector& connector, core::Clock& clock,
                         core::Sleeper& sleeper, FollowOptions options)
    : client_(client), connector_(connector), clock_(clock), sleeper_(sleeper), options_(std::move(options)),
      offset_(options_.start_offset) {}

bool LogFollower::cancelled() const { return options_.cancel != nullptr && options_.cancel->cancelled(); }

// Every tail connection and every GET .../logs starts at byte 0 of the driver log; `offset_`
// counts what was delivered, so a replay only delivers what lies beyond it.
void LogFollower::Deliver(std::string_view piece, uint64_t piece_start, const LogTextHandler& on_text) {
  uint64_t piece_end = piece_start + piece.size();
  if (piece_end <= offset_) return;
  uint64_t skip = offset_ > piece_start ? offset_ - piece_start : 0;
  offset_ = piece_end;
  on_text(piece.substr(skip));
}

core::Result<JobDetails> LogFollower::Follow(const std::string& id, const LogTextHandler& on_text) {
  int drops = 0;
  while (options_.use_websocket) {
    core::Error error;
    std::optional<JobDetails> ended;
    TailEnd end = Tail(id, on_text, error, ended);
    if (end == TailEnd::kCancelled) return core::Fail(core::Error::Cancelled());
    if (end == TailEnd::kJobEnded) {
      // The tail was still open: what the log holds past it was on its way, not cut off.
      if (auto caught_up = CatchUp(id, *ended, on_text, /*stream_closed=*/false); !caught_up) {
        return core::Fail(caught_up.error());
      }
      return std::move(*ended);
    }
    if (end == TailEnd::kUnusable) {
      // 404 (no such job) and 400 (a DRIVER job) are answers, not socket trouble.
      if (error.http_status == 404 || error.http_status == 400) {
        error.where = "ray.jobs.logs";
        return core::Fail(error);
      }
      if (options_.on_notice)
        options_.on_notice("log stream unavailable (" + error.message + "); polling the log instead");
      break;
    }
    auto job = GetRidingOutRestarts(id);
    if (!job) return core::Fail(job.error());
    if (IsTerminal(job->status)) {
      if (auto caught_up = CatchUp(id, *job, on_text, /*stream_closed=*/true); !caught_up) {
        return core::Fail(caught_up.error());
      }
      return job;
    }
    // A close while the job runs: a proxy timed the idle connection out, or the head restarted.
    if (++drops > options_.max_reconnects) {
      if (options_.on_notice) options_.on_notice("log stream keeps dropping; polling the log instead");
      break;
    }
    if (options_.on_notice) options_.on_notice("log stream dropped; reconnecting");
  }
  return Poll(id, on_text);
}

LogFollower::TailEnd LogFollower::Tail(const std::string& id, const LogTextHandler& on_text, core::Error& error,
                                       std::optional<JobDetails>& ended) {
  auto connection = connector_.Connect(client_.LogTailUrl(id), client_.options().headers);
  if (!connection) {
    error = connection.error();
    return TailEnd::kUnusable;
  }
  uint64_t stream_position = 0;
  auto quiet_since = clock_.Now();
  auto status_gap = options_.tail_status_first;
  while (true) {
    if (cancelled()) {
      (*connection)->Close(1000);
      return TailEnd::kCancelled;
    }
    auto message = (*connection)->Receive(kReceiveSlice);
    if (!message) return TailEnd::kDropped;
    if (!*message) {
      if (clock_.Now() - quiet_since < status_gap) continue;
      // Quiet for a while: has the job ended under a stalled stream? A failed read is no answer;
      // the tail goes on, and so do the reads.
      if (auto job = client_.Get(id); job && IsTerminal(job->status)) {
        (*connection)->Close(1000);
        ended = std::move(*job);
        return TailEnd::kJobEnded;
      }
      quiet_since = clock_.Now();
      status_gap = std::min(status_gap * 2, options_.tail_status_max);
      continue;
    }
    if ((*message)->type == http::WebSocketMessage::Type::kClose) {
      if (auto why = Unreadable((*message)->close_code)) {
        error = core::Error::Make(core::ErrorKind::kUnavailable,
                                  *why + " (close " + std::to_string((*message)->close_code) + ")");
        return TailEnd::kUnusable;
      }
      return (*message)->close_code == 1000 ? TailEnd::kClosedNormally : TailEnd::kDropped;
    }
    quiet_since = clock_.Now();
    status_gap = options_.tail_status_first;
    Deliver((*message)->data, stream_position, on_text);
    stream_position += (*message)->data.size();
  }
}

template <typename Call>
auto LogFollower::RidingOutRestarts(const Call& call) -> decltype(call()) {
  auto delay = options_.poll_initial;
  for (int attempt = 1;; ++attempt) {
    auto answer = call();
    if (answer || !Unreachable(answer.error()) || attempt >= options_.max_unreachable_polls) return answer;
    if (attempt == 1 && options_.on_notice) {
      options_.on_notice("Ray head unreachable (" + answer.error().message + "); retrying");
    }
    if (!sleeper_.Sleep(delay)) return core::Fail(core::Error::Cancelled());
    delay = std::min(delay * 2, options_.poll_max);
  }
}

core::Result<JobDetails> LogFollower::GetRidingOutRestarts(const std::string& id) {
  return RidingOutRestarts([&] { return client_.Get(id); });
}

// Ray's head relays the agent's tail through aiohttp, whose default limit is 4 MiB a message, and
// the agent sends each line whole: past a longer line the relay ends, and the head closes with
// 1000 all the same. The tail cannot tell that from the end of the log, so a follow ends by
// reading the log once (the status read terminal first: it is complete) and delivering what the
// tail missed. When that read fails, the follow fails: lines are never dropped silently. Only a
// stream the head closed short is news: a tail that tputrain left because the job's status read
// terminal while the stream was quiet is expected to be behind (the relay had not passed on the
// last lines yet), and its catch-up is said nowhere.
core::Status LogFollower::CatchUp(const std::string& id, const JobDetails& job, const LogTextHandler& on_text,
                                  bool stream_closed) {
  auto logs = RidingOutRestarts([&] { return client_.Logs(id); });
  if (!logs) {
    core::Error error = logs.error();
    error.message = "job '" + id + "' " + job.status_text + ", but its log could not be read to check that the " +
                    "stream missed nothing (" + error.message + "); tputrain job logs " + id + " shows it";
    return core::Fail(error);
  }
  if (stream_closed && logs->size() > offset_ && options_.on_notice) {
    options_.on_notice("the log stream ended " + std::to_string(logs->size() - offset_) +
                       " bytes early (Ray's dashboard relays no line over 4 MiB); the rest read from the job's log");
  }
  Deliver(*logs, 0, on_text);
  return {};
}

// Status first in each look: once it reads terminal, the log fetched after it is complete. A
// look that delivered something new starts the pauses over.
core::Result<JobDetails> LogFollower::Poll(const std::string& id, const LogTextHandler& on_text) {
  std::optional<JobDetails> finished;
  auto look = [&]() -> core::Result<core::Seen> {
    auto job = GetRidingOutRestarts(id);
    if (!job) return core::Fail(job.error());
    auto logs = client_.Logs(id);
    if (!logs) return core::Fail(logs.error());
    uint64_t before = offset_;
    Deliver(*logs, 0, on_text);
    if (IsTerminal(job->status)) {
      finished = std::move(*job);
      return core::Seen::kDone;
    }
    return offset_ != before ? core::Seen::kProgressed : core::Seen::kWaiting;
  };
  // No timeout: a follow lasts as long as the job. The status read rides out restarts itself,
  // so any failure a look returns ends the follow.
  core::PollOptions pacing{.initial_delay = options_.poll_initial,
                           .multiplier = 2,
                           .max_delay = options_.poll_max,
                           .is_transient = [](const core::Error&) { return false; }};
  auto followed = core::PollUntilSeen(look, pacing, {clock_, sleeper_, options_.cancel});
  if (!followed) {
    if (followed.error().kind == core::ErrorKind::kCancelled) return core::Fail(core::Error::Cancelled());
    return core::Fail(followed.error());
  }
  return std::move(*finished);
}

}  // namespace tputrain::ray
