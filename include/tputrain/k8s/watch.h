#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"

namespace tputrain::k8s {

// What a predicate makes of the object's latest state (`object` is null while it is absent).
struct Verdict {
  enum class State { kWaiting, kDone, kFailed };
  State state = State::kWaiting;
  std::string detail;  // why it is not done yet, or why it failed

  static Verdict Waiting(std::string why) { return {State::kWaiting, std::move(why)}; }
  static Verdict Done() { return {State::kDone, ""}; }
  static Verdict Failed(std::string why) { return {State::kFailed, std::move(why)}; }
};
using Predicate = std::function<Verdict(const nlohmann::json* object)>;

// Time, sleep and Ctrl-C: what any wait needs.
using WatchDeps = core::PollEnv;

struct WatchOptions {
  std::chrono::milliseconds timeout{300'000};
  // Each watch request asks the server to end the stream after this long; the watch is then
  // resumed from the last resourceVersion seen, so a silent connection cannot hang forever.
  std::chrono::seconds server_timeout{60};
  // Called when each watch stream opens (tests use it to break the connection on purpose).
  std::function<void(int watch_number)> on_watch_started;
};

struct WatchStats {
  int lists = 0;    // full reads (the first, and after 410 Gone)
  int watches = 0;  // watch requests sent
  int resumes = 0;  // watches resumed from a resourceVersion after a stream ended or broke
  int relists = 0;  // 410 Gone: the resourceVersion was too old, so the object was read again
};

struct WatchOutcome {
  nlohmann::json object;  // the last state seen (null if absent)
  Verdict verdict;        // kDone, or the last kWaiting/kFailed
  WatchStats stats;
};

// Reads the named object in `collection_path`, then watches it (?watch=1&resourceVersion=...)
// until `predicate` says done or failed, or the timeout passes. A dropped connection or a
// server-ended stream is resumed from the last resourceVersion; 410 Gone relists. Returns the
// outcome on done, failed and timeout alike (the caller explains a timeout); an Error only for
// API errors, cancellation and an unreachable server at the deadline.
core::Result<WatchOutcome> WatchObject(Client& client, const std::string& collection_path, const std::string& name,
                                       const Predicate& predicate, const WatchOptions& options, WatchDeps deps);

}  // namespace tputrain::k8s
