#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "tputrain/core/poll.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/operations/operation.h"

// The one wait for work a server does after answering: an operation, or a resource whose state
// tells how the work goes (a Cloud Build build, a queued resource). Each API says how to read
// its kind and when it has ended (an adapter beside its client); the loop, its backoff, its
// timeout and cancellation are core::PollUntil's.
namespace tputrain::gcp::operations {

using PollOptions = core::PollOptions;
using PollEnv = core::PollEnv;
using core::PollDelay;

// How to wait for a T.
template <typename T>
struct Waiting {
  std::function<core::Result<T>()> get;  // one read
  std::function<bool(const T&)> done;    // it has ended, well or not
  // How an ended one failed (nullopt: it did not); null when an end is never a failure.
  std::function<std::optional<core::Error>(const T&)> failed;
};

// Called after each read with what was read.
template <typename T>
using Progress = std::function<void(const T&)>;

// core::PollUntil, with "(the operation goes on)" said on a timeout unless options say otherwise:
// the loop under Wait, for reads that answer "done?" themselves (a resource becoming usable).
core::Status PollUntilDone(const std::function<core::Result<bool>()>& poll, const PollOptions& options,
                           const PollEnv& env);

// Reads until done (the first read at once, then with the backoff of `options`; transient read
// failures tolerated as they say), showing each read to `progress`; returns the last read, or
// how it failed. A timeout stops the wait, not the work (kDeadlineExceeded); Ctrl-C, kCancelled.
template <typename T>
core::Result<T> Wait(const Waiting<T>& waiting, const PollOptions& options, const PollEnv& env,
                     const std::type_identity_t<Progress<T>>& progress = nullptr) {
  std::optional<T> last;
  auto status = PollUntilDone(
      [&]() -> core::Result<bool> {
        auto read = waiting.get();
        if (!read) return core::Fail(read.error());
        last = std::move(*read);
        if (progress) progress(*last);
        return waiting.done(*last);
      },
      options, env);
  if (!status) return core::Fail(status.error());
  if (waiting.failed) {
    if (auto failure = waiting.failed(*last)) return core::Fail(std::move(*failure));
  }
  return std::move(*last);
}

// The same, from the answer a mutation gave: one that has already ended is not read again.
template <typename T>
core::Result<T> WaitFrom(T answer, const Waiting<T>& waiting, const PollOptions& options, const PollEnv& env,
                         const std::type_identity_t<Progress<T>>& progress = nullptr) {
  if (!waiting.done(answer)) return Wait(waiting, options, env, progress);
  if (waiting.failed) {
    if (auto failure = waiting.failed(answer)) return core::Fail(std::move(*failure));
  }
  return answer;
}

// One read: whether it has ended well, or how it failed (the read's own error included).
template <typename T>
core::Result<bool> ReadOnce(const Waiting<T>& waiting) {
  auto read = waiting.get();
  if (!read) return core::Fail(read.error());
  if (!waiting.done(*read)) return false;
  if (waiting.failed) {
    if (auto failure = waiting.failed(*read)) return core::Fail(std::move(*failure));
  }
  return true;
}

// A google.longrunning.Operation read by `get`: ended when done; its error is its failure, said to
// be `where`'s.
Waiting<Operation> LongRunning(std::function<core::Result<Operation>()> get, std::string where);

}  // namespace tputrain::gcp::operations
