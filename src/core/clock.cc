#include "tputrain/core/clock.h"

#include <algorithm>
#include <thread>

#include "tputrain/core/cancel.h"

namespace tputrain::core {

bool RealSleeper::Sleep(std::chrono::milliseconds duration) {
  constexpr std::chrono::milliseconds kSlice{50};
  auto remaining = duration;
  while (remaining.count() > 0) {
    if (cancel_ != nullptr && cancel_->cancelled()) return false;
    auto step = std::min(remaining, kSlice);
    std::this_thread::sleep_for(step);
    remaining -= step;
  }
  return cancel_ == nullptr || !cancel_->cancelled();
}

}  // namespace tputrain::core
