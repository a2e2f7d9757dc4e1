#pragma once

#include <atomic>

namespace tputrain::core {

// Set from a SIGINT handler; long waits check it and return kCancelled.
class CancelToken {
 public:
  void Cancel() { count_.fetch_add(1, std::memory_order_relaxed); }
  bool cancelled() const { return count_.load(std::memory_order_relaxed) > 0; }
  int count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> count_{0};
};

// Installs a SIGINT/SIGTERM handler that cancels `token`; a second signal exits at once (130).
void InstallInterruptHandler(CancelToken& token);

}  // namespace tputrain::core
