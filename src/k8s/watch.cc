#include "tputrain/k8s/watch.h"

#include <algorithm>

#include "tputrain/core/json.h"
#include "tputrain/k8s/json_fields.h"

namespace tputrain::k8s {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string NameSelector(const std::string& name) {
  return "fieldSelector=" + http::UrlEncode("metadata.name=" + name);
}

std::string ResourceVersionOf(const nlohmann::json& object) {
  return StringAt(ObjectAt(object, "metadata"), "resourceVersion");
}

core::Error Cancelled() { return core::Error::Cancelled("interrupted while waiting"); }

}  // namespace

core::Result<WatchOutcome> WatchObject(Client& client, const std::string& collection_path, const std::string& name,
                                       const Predicate& predicate, const WatchOptions& options, WatchDeps deps) {
  const auto deadline = deps.clock.Now() + options.timeout;
  WatchOutcome outcome;
  outcome.object = nullptr;
  milliseconds backoff{100};
  std::optional<core::Error> last_failure;

  auto remaining = [&]() { return duration_cast<milliseconds>(deadline - deps.clock.Now()); };
  auto evaluate = [&](const nlohmann::json* object) {
    outcome.object = object ? *object : nlohmann::json(nullptr);
    outcome.verdict = predicate(object);
    return outcome.verdict.state != Verdict::State::kWaiting;
  };
  auto pause = [&]() -> bool {
    auto wait = std::min(backoff, std::max(remaining(), milliseconds(0)));
    backoff = std::min(backoff * 2, milliseconds(5000));
    return deps.sleeper.Sleep(wait);
  };

  std::string resource_version;
  bool need_list = true;
  while (true) {
    if (deps.cancel != nullptr && deps.cancel->cancelled()) return core::Fail(Cancelled());
    if (remaining() <= milliseconds(0)) {
      if (last_failure && need_list) return core::Fail(*last_failure);
      return outcome;  // timed out: outcome.verdict says what was still missing
    }
    if (need_list) {
      auto list = client.Send("GET", collection_path + "?" + NameSelector(name));
      if (!list) {
        last_failure = list.error();
        if (!pause()) return core::Fail(Cancelled());
        continue;
      }
      if (!list->ok()) {
        if (list->status >= 500 || list->status == 429) {
          last_failure = ErrorFromStatus(list->status, list->body, name);
          if (!pause()) return core::Fail(Cancelled());
          continue;
        }
        return core::Fail(ErrorFromStatus(list->status, list->body, name));
      }
      ++outcome.stats.lists;
      last_failure.reset();
      auto json = core::ParseJson(list->body, "").value_or(nullptr);
      resource_version = ResourceVersionOf(json);
      const nlohmann::json* object = nullptr;
      if (json.is_object() && json.contains("items") && json["items"].is_array() && !json["items"].empty()) {
        object = &json["items"][0];
      }
      if (evaluate(object)) return outcome;
      need_list = false;
    }

    auto server_timeout = std::min(duration_cast<seconds>(remaining()) + seconds(1), options.server_timeout);
    std::string path = collection_path + "?watch=1&allowWatchBookmarks=true&" + NameSelector(name) +
                       "&resourceVersion=" + http::UrlEncode(resource_version) +
                       "&timeoutSeconds=" + std::to_string(server_timeout.count());
    ++outcome.stats.watches;
    if (options.on_watch_started) options.on_watch_started(outcome.stats.watches);
    bool finished = false;
    bool gone = false;
    std::optional<core::Error> stream_error;
    int events = 0;
    auto response = client.StreamLines(path, server_timeout + seconds(15), [&](std::string_view line) {
      auto event = core::ParseJson(line, "").value_or(nullptr);
      if (!event.is_object()) return true;
      if (!event.contains("type") && StringAt(event, "kind") == "Status") {
        gone = IntAt(event, "code", 0) == 410;
        if (!gone) stream_error = ErrorFromStatus(static_cast<int>(IntAt(event, "code", 500)), std::string(line), name);
        return false;
      }
      std::string type = StringAt(event, "type");
      const auto& object = ObjectAt(event, "object");
      if (type == "ERROR") {
        if (IntAt(object, "code", 0) == 410) {
          gone = true;
        } else {
          stream_error = ErrorFromStatus(static_cast<int>(IntAt(object, "code", 500)), object.dump(), name);
        }
        return false;
      }
      ++events;
      if (auto rv = ResourceVersionOf(object); !rv.empty()) resource_version = rv;
      if (type == "BOOKMARK") return true;
      if (type == "DELETED") {
        finished = evaluate(nullptr);
      } else if (StringAt(ObjectAt(object, "metadata"), "name") == name) {
        finished = evaluate(&object);
      }
      if (deps.cancel != nullptr && deps.cancel->cancelled()) return false;
      return !finished;
    });
    if (finished) return outcome;
    if (deps.cancel != nullptr && deps.cancel->cancelled()) return core::Fail(Cancelled());
    if (!response) {
      // The connection broke (or the server went away): resume from the last resourceVersion.
      last_failure = response.error();
      ++outcome.stats.resumes;
      if (!pause()) return core::Fail(Cancelled());
      continue;
    }
    if (gone || response->status == 410) {
      ++outcome.stats.relists;
      need_list = true;
      continue;
    }
    if (stream_error) {
      // A restarted API server answers 429 "storage is (re)initializing" until its watch cache is
      // ready again: as transient as a 5xx.
      if (stream_error->http_status >= 500 || stream_error->http_status == 429) {
        last_failure = *stream_error;
        if (!pause()) return core::Fail(Cancelled());
        ++outcome.stats.resumes;
        continue;
      }
      return core::Fail(*stream_error);
    }
    if (!response->ok()) {
      if (response->status >= 500 || response->status == 429) {
        last_failure = ErrorFromStatus(response->status, response->body, name);
        if (!pause()) return core::Fail(Cancelled());
        ++outcome.stats.resumes;
        continue;
      }
      return core::Fail(ErrorFromStatus(response->status, response->body, name));
    }
    // The server ended the stream at its timeout: carry on from where it left off.
    last_failure.reset();
    if (events > 0) backoff = milliseconds(100);
    ++outcome.stats.resumes;
  }
}

}  // namespace tputrain::k8s
