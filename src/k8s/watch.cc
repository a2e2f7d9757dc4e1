#include "tputrain/k8s/watch.h"

#include <algorithm>
#include <optional>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/poll_seen.h"

namespace tputrain::k8s {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string NameSelector(const std::string& name) {
  return "fieldSelector=" + http::UrlEncode("metadata.name=" + name);
}

std::string ResourceVersionOf(const nlohmann::json& object) {
  return core::StringAt(core::ObjectAt(object, "metadata"), "resourceVersion");
}

core::Error Cancelled() { return core::Error::Cancelled("interrupted while waiting"); }

// A restarted API server answers 429 "storage is (re)initializing" until its watch cache is
// ready again: as transient as a 5xx.
bool TransientStatus(int http_status) { return http_status >= 500 || http_status == 429; }

// One WatchObject. Each look lists the object when it must (the first time, after 410 Gone),
// then watches it, resuming at once whenever the server ends a stream cleanly; a look ends when
// the predicate decides, the wait must end (a refusal, Ctrl-C, the deadline: all kDone, with
// `ended_` or `timed_out_` saying which), or a transient failure calls for a pause (kProgressed
// when a stream delivered events first, so the pauses start over). The pauses, their backoff and
// the cap at the deadline are core::PollUntilSeen's.
class ObjectWatch {
 public:
  ObjectWatch(Client& client, const std::string& collection_path, const std::string& name, const Predicate& predicate,
              const WatchOptions& options, const WatchDeps& deps)
      : client_(client), collection_path_(collection_path), name_(name), predicate_(predicate), options_(options),
        deps_(deps), deadline_(deps.clock.Now() + options.timeout) {
    outcome_.object = nullptr;
  }

  core::Result<core::Seen> Look() {
    bool progressed = false;
    while (true) {
      if (deps_.cancel != nullptr && deps_.cancel->cancelled()) {
        End(Cancelled());
        return core::Seen::kDone;
      }
      if (Remaining() <= milliseconds(0)) {
        timed_out_ = true;
        return core::Seen::kDone;
      }
      Step step = need_list_ ? List() : Watch(progressed);
      if (step == Step::kEnd) return core::Seen::kDone;
      if (step == Step::kPause) return progressed ? core::Seen::kProgressed : core::Seen::kWaiting;
    }
  }

  // The result once the looks are over; `waited` is what PollUntilSeen returned.
  core::Result<WatchOutcome> Result(const core::Status& waited) {
    if (ended_) return core::Fail(*ended_);
    if (!waited && waited.error().kind == core::ErrorKind::kCancelled) return core::Fail(waited.error());
    bool timed_out = timed_out_ || !waited;  // !waited: PollUntilSeen's own timeout, a step behind ours
    // Never read: the server's failure is the answer. Read: the caller explains what was missing.
    if (timed_out && last_failure_ && need_list_) return core::Fail(*last_failure_);
    return outcome_;
  }

 private:
  enum class Step { kNext, kPause, kEnd };

  milliseconds Remaining() { return duration_cast<milliseconds>(deadline_ - deps_.clock.Now()); }

  bool Decided(const nlohmann::json* object) {
    outcome_.object = object ? *object : nlohmann::json(nullptr);
    outcome_.verdict = predicate_(object);
    return outcome_.verdict.state != Verdict::State::kWaiting;
  }
  Step End(core::Error error) {
    ended_ = std::move(error);
    return Step::kEnd;
  }
  Step Pause(core::Error error) {
    last_failure_ = std::move(error);
    return Step::kPause;
  }
  Step Refused(int http_status, const std::string& body) {
    auto error = ErrorFromStatus(http_status, body, name_);
    return TransientStatus(http_status) ? Pause(std::move(error)) : End(std::move(error));
  }

  Step List() {
    auto list = client_.Send("GET", collection_path_ + "?" + NameSelector(name_));
    if (!list) return Pause(list.error());
    if (!list->ok()) return Refused(list->status, list->body);
    ++outcome_.stats.lists;
    last_failure_.reset();
    auto json = core::ParseJson(list->body, "").value_or(nullptr);
    resource_version_ = ResourceVersionOf(json);
    const nlohmann::json* object = nullptr;
    if (json.is_object() && json.contains("items") && json["items"].is_array() && !json["items"].empty()) {
      object = &json["items"][0];
    }
    if (Decided(object)) return Step::kEnd;
    need_list_ = false;
    return Step::kNext;
  }

  // One watch stream from resource_version_; `progressed` is set when it delivered events and
  // the server then ended it.
  Step Watch(bool& progressed) {
    auto server_timeout = std::min(duration_cast<seconds>(Remaining()) + seconds(1), options_.server_timeout);
    std::string path = collection_path_ + "?watch=1&allowWatchBookmarks=true&" + NameSelector(name_) +
                       "&resourceVersion=" + http::UrlEncode(resource_version_) +
                       "&timeoutSeconds=" + std::to_string(server_timeout.count());
    ++outcome_.stats.watches;
    if (options_.on_watch_started) options_.on_watch_started(outcome_.stats.watches);
    bool finished = false;
    bool gone = false;
    std::optional<core::Error> stream_error;
    int events = 0;
    auto response = client_.StreamLines(path, server_timeout + seconds(15), [&](std::string_view line) {
      auto event = core::ParseJson(line, "").value_or(nullptr);
      if (!event.is_object()) return true;
      if (!event.contains("type") && core::StringAt(event, "kind") == "Status") {
        gone = core::IntAt(event, "code", 0) == 410;
        if (!gone)
          stream_error = ErrorFromStatus(static_cast<int>(core::IntAt(event, "code", 500)), std::string(line), name_);
        return false;
      }
      std::string type = core::StringAt(event, "type");
      const auto& object = core::ObjectAt(event, "object");
      if (type == "ERROR") {
        if (core::IntAt(object, "code", 0) == 410) {
          gone = true;
        } else {
          stream_error = ErrorFromStatus(static_cast<int>(core::IntAt(object, "code", 500)), object.dump(), name_);
        }
        return false;
      }
      ++events;
      if (auto rv = ResourceVersionOf(object); !rv.empty()) resource_version_ = rv;
      if (type == "BOOKMARK") return true;
      if (type == "DELETED") {
        finished = Decided(nullptr);
      } else if (core::StringAt(core::ObjectAt(object, "metadata"), "name") == name_) {
        finished = Decided(&object);
      }
      if (deps_.cancel != nullptr && deps_.cancel->cancelled()) return false;
      return !finished;
    });
    if (finished) return Step::kEnd;
    if (deps_.cancel != nullptr && deps_.cancel->cancelled()) return End(Cancelled());
    if (!response) {
      // The connection broke (or the server went away): resume from the last resourceVersion.
      ++outcome_.stats.resumes;
      return Pause(response.error());
    }
    if (gone || response->status == 410) {
      ++outcome_.stats.relists;
      need_list_ = true;
      return Step::kNext;
    }
    if (stream_error) {
      if (!TransientStatus(stream_error->http_status)) return End(*stream_error);
      ++outcome_.stats.resumes;
      return Pause(*stream_error);
    }
    if (!response->ok()) {
      if (TransientStatus(response->status)) ++outcome_.stats.resumes;
      return Refused(response->status, response->body);
    }
    // The server ended the stream at its timeout: carry on from where it left off.
    last_failure_.reset();
    if (events > 0) progressed = true;
    ++outcome_.stats.resumes;
    return Step::kNext;
  }

  Client& client_;
  const std::string& collection_path_;
  const std::string& name_;
  const Predicate& predicate_;
  const WatchOptions& options_;
  const WatchDeps& deps_;
  const core::Clock::TimePoint deadline_;
  WatchOutcome outcome_;
  std::string resource_version_;
  bool need_list_ = true;
  std::optional<core::Error> last_failure_;
  std::optional<core::Error> ended_;
  bool timed_out_ = false;
};

}  // namespace

core::Result<WatchOutcome> WatchObject(Client& client, const std::string& collection_path, const std::string& name,
                                       const Predicate& predicate, const WatchOptions& options, WatchDeps deps) {
  ObjectWatch watch(client, collection_path, name, predicate, options, deps);
  // A look never fails (it retries what is transient and ends the wait on anything else), so
  // PollUntilSeen only paces the looks: 100 ms doubling to 5 s, none past the deadline.
  core::PollOptions pacing{
      .initial_delay = milliseconds(100), .multiplier = 2, .max_delay = milliseconds(5000), .timeout = options.timeout};
  return watch.Result(core::PollUntilSeen([&watch] { return watch.Look(); }, pacing, deps));
}

}  // namespace tputrain::k8s
