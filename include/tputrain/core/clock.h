#pragma once

#include <chrono>

namespace tputrain::core {

// Time is injected so that retry, backoff and polling tests run in microseconds.
class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint Now() = 0;
  // Wall-clock seconds since the epoch, for token expiry and JWT claims.
  virtual std::chrono::system_clock::time_point WallNow() = 0;
};

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  // Returns false when the sleep was cut short by cancellation (Ctrl-C).
  virtual bool Sleep(std::chrono::milliseconds duration) = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint Now() override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point WallNow() override { return std::chrono::system_clock::now(); }
};

class CancelToken;

// Sleeps in short slices so that a cancellation is noticed within ~50 ms.
class RealSleeper final : public Sleeper {
 public:
  explicit RealSleeper(const CancelToken* cancel = nullptr) : cancel_(cancel) {}
  bool Sleep(std::chrono::milliseconds duration) override;

 private:
  const CancelToken* cancel_;
};

}  // namespace tputrain::core
