#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "tputrain/core/redact.h"
#include "tputrain/workflow/stack_run.h"

namespace tputrain::cli {

// How `tputrain up` shows its steps on stderr. On a terminal, one live line per running step
// (what it is doing, and for how long), redrawn in place, and a kept line as each ends; piped or
// in CI, one line per change of a step's state, and nothing else.
class StackProgress final : public workflow::StackObserver {
 public:
  StackProgress(std::ostream& err, bool is_tty, bool quiet, const core::Redactor& redactor);
  ~StackProgress() override;
  StackProgress(const StackProgress&) = delete;
  StackProgress& operator=(const StackProgress&) = delete;

  void Changed(const workflow::StepResult& step) override;
  void Progress(std::string_view id, std::string_view detail) override;
  // The live lines go; what was said stays.
  void Finish();

 private:
  struct Running {
    std::chrono::steady_clock::time_point since;
    std::string detail;
  };
  void Line(const std::string& text);  // a kept line, above the live ones
  void Redraw();
  void Clear();

  std::ostream& err_;
  const bool is_tty_;
  const bool quiet_;
  const core::Redactor& redactor_;
  std::mutex mutex_;
  std::map<std::string, Running> running_;  // by step id
  size_t shown_ = 0;                        // live lines on the screen
  bool stopping_ = false;
  std::condition_variable tick_;
  std::thread ticker_;  // on a terminal: the elapsed times move each second
};

}  // namespace tputrain::cli
