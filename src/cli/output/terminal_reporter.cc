#include "terminal_reporter.h"

namespace tputrain::cli {

void TerminalReporter::ClearLiveLine() {
  if (live_line_shown_) {
    err_ << "\r\033[K";
    live_line_shown_ = false;
  }
}

void TerminalReporter::Line(std::string_view text) {
  ClearLiveLine();
  err_ << redactor_(text) << "\n";
  err_.flush();
}

void TerminalReporter::Info(std::string_view message) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  Line(message);
}

// Warnings survive --quiet: they are about the result, not about progress.
void TerminalReporter::Warn(std::string_view message) {
  std::lock_guard lock(mutex_);
  Line(std::string("WARNING: ") + std::string(message));
}

void TerminalReporter::Debug(std::string_view message) {
  if (!verbose_) return;
  std::lock_guard lock(mutex_);
  Line(message);
}

void TerminalReporter::Progress(std::string_view task, std::string_view state) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  auto it = last_state_.find(task);
  if (it != last_state_.end() && it->second == state) return;
  last_state_[std::string(task)] = std::string(state);
  std::string text = std::string(task) + ": " + std::string(state);
  if (is_tty_) {
    ClearLiveLine();
    err_ << redactor_(text);
    err_.flush();
    live_line_shown_ = true;
  } else {
    Line(text);
  }
}

void TerminalReporter::Done(std::string_view task, std::string_view outcome) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  last_state_.erase(std::string(task));
  Line(std::string(task) + ": " + std::string(outcome));
}

}  // namespace tputrain::cli
