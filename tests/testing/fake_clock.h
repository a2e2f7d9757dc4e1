#pragma once

#include <chrono>
#include <mutex>
#include <vector>

#include "tputrain/core/clock.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/runtime.h"

namespace tputrain::testing {

// Time that moves only when a test moves it: by sleeping through it (each sleep is recorded), by
// Advance, or by a step on every read of Now(). Steady time starts at its epoch, wall time at
// `wall_start`. The one fake of core::Clock and core::Sleeper.
class FakeClock final : public core::Clock, public core::Sleeper {
 public:
  FakeClock() = default;
  explicit FakeClock(std::chrono::system_clock::time_point wall_start) : wall_start_(wall_start) {}

  TimePoint Now() override {
    std::lock_guard lock(mutex_);
    elapsed_ += step_;
    return TimePoint{} + elapsed_;
  }
  std::chrono::system_clock::time_point WallNow() override {
    std::lock_guard lock(mutex_);
    return wall_start_ + elapsed_;
  }
  // Records the sleep and lets its time pass; false (a sleep cut short by Ctrl-C) once
  // CancelSleeps() was called.
  bool Sleep(std::chrono::milliseconds duration) override {
    std::lock_guard lock(mutex_);
    sleeps_.push_back(duration);
    elapsed_ += duration;
    return !sleeps_cancelled_;
  }

  void Advance(std::chrono::milliseconds by) {
    std::lock_guard lock(mutex_);
    elapsed_ += by;
  }
  // Every read of Now() moves time on by `step` (a call that measures itself sees it take `step`).
  void StepEachRead(std::chrono::milliseconds step) {
    std::lock_guard lock(mutex_);
    step_ = step;
  }
  void CancelSleeps(bool cancelled = true) {
    std::lock_guard lock(mutex_);
    sleeps_cancelled_ = cancelled;
  }
  std::vector<std::chrono::milliseconds> sleeps() {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  std::mutex mutex_;
  std::chrono::system_clock::time_point wall_start_{};
  std::chrono::milliseconds elapsed_{0};
  std::chrono::milliseconds step_{0};
  bool sleeps_cancelled_ = false;
  std::vector<std::chrono::milliseconds> sleeps_;
};

// A runtime on fake time: what the composition root (workflow::Root) builds for a workflow, for tests.
inline core::Runtime RuntimeOn(FakeClock& clock, core::Reporter& reporter, const core::CancelToken* cancel = nullptr) {
  return {{clock, clock, cancel}, reporter};
}

}  // namespace tputrain::testing
